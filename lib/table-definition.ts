import { tableDefinition } from '../functions/adapters/dynamodb/table';
import type { CarhookTableDefinition } from './constructs/carhook-table';

/**
 * The single table's shape, taken from the runtime's DynamoDB adapter (the same data the local
 * runtime and the tests create their tables from), so CDK and the code that reads the table cannot
 * drift. Typed here as what CarhookTable accepts: a change there that CDK cannot build fails typecheck.
 */
export const carhookTableDefinition: CarhookTableDefinition = tableDefinition;
