// Waiting for the word to stop: SIGINT, SIGTERM or an abort signal (tests, an embedding caller).
// Shared by `chatbridge start` and `chatbridge service`.

/** Resolves at the first SIGINT or SIGTERM, or when `signal` aborts; leaves no listener behind. */
export async function untilStopAsked(signal?: AbortSignal): Promise<void> {
  let stop!: () => void;
  await new Promise<void>((resolve) => {
    stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    signal?.addEventListener('abort', stop, { once: true });
    if (signal?.aborted) stop();
  });
  process.removeListener('SIGINT', stop);
  process.removeListener('SIGTERM', stop);
  signal?.removeEventListener('abort', stop);
}
