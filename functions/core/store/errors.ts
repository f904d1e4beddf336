/**
 * Store errors. Expected outcomes (a lost race, a duplicate VIN, a lease held by someone else) are
 * returned as values by the ports; these are thrown for what the caller cannot handle inline:
 * bad input (a bug upstream) and storage failures (retry the job).
 */
export type StoreErrorKind = 'InvalidInput' | 'NotFound' | 'ItemTooLarge' | 'StoreFailure' | 'Malformed';

export class StoreError extends Error {
  override readonly name = 'StoreError';
  constructor(
    readonly kind: StoreErrorKind,
    message: string,
    /** What a person needs to act: table, operation, key, field… never secrets. */
    readonly context: Readonly<Record<string, string | number | boolean | undefined>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function invalidInput(
  field: string,
  why: string,
  context: Record<string, string | number> = {},
): StoreError {
  return new StoreError('InvalidInput', `${field}: ${why}`, { field, ...context });
}
