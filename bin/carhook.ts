/**
 * `carhook` (bin/carhook.mjs runs this file): the local runtime (`dev`), the simulator (`sim`) and
 * the management commands against a local runtime or a deployed stack. See `carhook --help`.
 */
import { buildProgram, runProgram } from './cli/program';

await runProgram(buildProgram(), process.argv);
