import { FieldError } from '../core/field-error';

/** The composition could not build what a use case needs: names the field (a wiring bug or a bad setting). */
export class RuntimeSetupError extends FieldError {
  override readonly name = 'RuntimeSetupError';
  readonly kind = 'RuntimeSetup';
}
