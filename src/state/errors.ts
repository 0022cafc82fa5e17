// Errors of the state layer. Messages name the thread, never the store URL's password.
import { CodedError, ErrorCode } from '../errors.js';

/** The reason a job's AbortSignal fires: its thread lock is no longer held. */
export class LockLostError extends CodedError {
  constructor(
    readonly threadKey: string,
    readonly reason: 'lease lost' | 'max lifetime' | 'store closed',
  ) {
    super(ErrorCode.LockLost, `lock of thread "${threadKey}" no longer held: ${reason}`);
  }
}

/** run() could not take a thread's lock (the store is closed or unreachable). */
export class LockUnavailableError extends CodedError {
  constructor(
    readonly threadKey: string,
    detail: string,
  ) {
    super(ErrorCode.LockUnavailable, `cannot lock thread "${threadKey}": ${detail}`);
  }
}
