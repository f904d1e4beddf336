/** The composition could not build what a use case needs: names the field (a wiring bug or a bad setting). */
export class RuntimeSetupError extends Error {
  override readonly name = 'RuntimeSetupError';
  readonly kind = 'RuntimeSetup';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}
