// Graceful shutdown helpers: refusing new events while stopping, and waiting a bounded time for
// the answers in progress to reach their final state.
import { CodedError, ErrorCode, isCodedError } from '../../src/errors.js';

/** Thrown for an event that arrives while the adapter stops, so Slack delivers it again. */
export class ShuttingDownError extends CodedError {
  constructor() {
    super(ErrorCode.ShuttingDown, 'chatbridge is shutting down; the event will be delivered again');
    this.name = 'ShuttingDownError';
  }
}

/** Bolt wraps listener errors (`original`); either form counts. */
export function isShuttingDown(error: unknown): boolean {
  const original = (error as { original?: unknown } | undefined)?.original;
  return (
    isCodedError(error, ErrorCode.ShuttingDown) || isCodedError(original, ErrorCode.ShuttingDown)
  );
}

/** Waits for `work`, or `limitMs`, whichever comes first; `onTimeout` when the limit won. */
export async function drain(
  work: Promise<unknown>,
  limitMs: number,
  onTimeout: () => void,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), limitMs);
  });
  const outcome = await Promise.race([work.then(() => 'done' as const), limit]);
  clearTimeout(timer);
  if (outcome === 'timeout') onTimeout();
}
