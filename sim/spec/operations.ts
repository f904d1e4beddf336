import spec from './operations.json' with { type: 'json' };

/**
 * The interface's operation list, read from `operations.json` (a copy of the shared spec's file, 63
 * entries) so the simulator and its coverage test need nothing outside the repository. Refresh the
 * JSON from the spec file rather than editing entries by hand.
 */
export interface SpecQueryParam {
  readonly name: string;
  readonly required: boolean;
  readonly type: string;
  readonly default?: string | number;
  readonly enum?: readonly string[];
  readonly notes?: string;
}

export interface SpecOperation {
  readonly id: string;
  readonly area: 'A' | 'B' | 'C' | 'D' | 'auth';
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly path: string;
  readonly query: readonly SpecQueryParam[];
  readonly response: string;
  readonly accept?: string;
  readonly auth: string;
  readonly body?: string;
  readonly notes?: string;
}

const AREAS: readonly string[] = ['A', 'B', 'C', 'D', 'auth'];
const METHODS: readonly string[] = ['GET', 'POST', 'PUT'];

/** Checks the two closed fields of an entry, so a bad edit of the JSON fails at load, naming the entry. */
export function checkedOperation(entry: { id: string; area: string; method: string }): SpecOperation {
  if (!AREAS.includes(entry.area))
    throw new TypeError(`operations.json: ${entry.id}: unknown area '${entry.area}'`);
  if (!METHODS.includes(entry.method)) {
    throw new TypeError(`operations.json: ${entry.id}: unknown method '${entry.method}'`);
  }
  return entry as SpecOperation;
}

export const SPEC_OPERATIONS: readonly SpecOperation[] = spec.operations.map(checkedOperation);
