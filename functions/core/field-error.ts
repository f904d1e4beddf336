/**
 * An error about one named input: `field` names it (a variable, a flag, a JSON path), the message
 * says `<field>: <why>`. Each subclass sets its `name` and the `kind` callers switch on.
 */
export abstract class FieldError extends Error {
  abstract override readonly name: string;
  abstract readonly kind: string;
  constructor(
    readonly field: string,
    why: string,
    /** Words before the field in the message (`poll job `). */
    prefix = '',
  ) {
    super(`${prefix}${field}: ${why}`);
  }
}
