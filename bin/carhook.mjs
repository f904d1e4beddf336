#!/usr/bin/env node
// The `carhook` command (package.json "bin"): runs bin/carhook.ts on the current Node through the
// tsx loader installed with the package, in this process (so Ctrl-C reaches the runtime directly).
import { register } from 'tsx/esm/api';

register();
await import('./carhook.ts');
