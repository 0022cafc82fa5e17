// Errors of the state layer. Messages name the thread, never the store URL's password.

/** The reason a job's AbortSignal fires: its thread lock is no longer held. */
export class LockLostError extends Error {
  override readonly name = 'LockLostError';
  constructor(
    readonly threadKey: string,
    readonly reason: 'lease lost' | 'max lifetime' | 'store closed',
  ) {
    super(`lock of thread "${threadKey}" no longer held: ${reason}`);
  }
}

/** run() could not take a thread's lock (the store is closed or unreachable). */
export class LockUnavailableError extends Error {
  override readonly name = 'LockUnavailableError';
  constructor(
    readonly threadKey: string,
    detail: string,
  ) {
    super(`cannot lock thread "${threadKey}": ${detail}`);
  }
}
