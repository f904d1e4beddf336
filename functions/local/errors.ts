/**
 * Why the local runtime could not start, as one sentence a person can act on ("a missing
 * Java, a busy port or a bad flag gets one clear line saying what to do, not a stack trace").
 */
export type LocalRuntimeErrorKind =
  | 'InvalidOption'
  | 'PortInUse'
  | 'JavaMissing'
  | 'StartFailed'
  | 'Config'
  | 'DataDirInUse'
  /** Ctrl-C (its signal) during start-up: what was started has been stopped. */
  | 'Interrupted';

export class LocalRuntimeError extends Error {
  override readonly name = 'LocalRuntimeError';
  constructor(
    readonly kind: LocalRuntimeErrorKind,
    message: string,
    /** The flag or setting at fault, when there is one (`--port`, `dataDir`…). */
    readonly field?: string,
  ) {
    super(message);
  }
}

/** Exit codes of `carhook dev`: 2 for a usage mistake (as commander), 1 for anything else. */
export const exitCodeOf = (error: LocalRuntimeError): number => (error.kind === 'InvalidOption' ? 2 : 1);
