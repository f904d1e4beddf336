/** The webhook modules use core's one `Result` (functions/core/result.ts). */
export { type Err, err, type Ok, ok, type Result } from '../result';
