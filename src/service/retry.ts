// When a failed call is tried again, and how long to wait first.
//
// The policy, per kind of call:
// - every call, the stream included, retries a failure that provably happened before any byte
//   was sent (connection refused, unknown host, connect timeout): the server saw nothing.
// - reads (GET) and updates (POST …/update: they set fields to values, so a repeat is
//   harmless) also retry 502/503/504 and a connection reset before any response.
// - creates (chatbot, agent, tag, session, data sources) also retry 502 and 503, which gateways
//   send when the service did not take the request. Not 504: the service may have done the
//   work after the gateway gave up, and a retry would create a duplicate.
// - the stream never retries once sent: the question would be asked and stored twice.
// Backoff is exponential with full jitter, bounded by maxRetries; a Retry-After is honoured.
// Not undici's RetryHandler: it decides by method and status alone, and these rules depend on
// the kind of call (a create's POST and an update's POST differ; the stream's depends on send).
import { ServiceError } from './errors.js';
import { neverReachedServer } from './transport-error.js';

export type CallKind = 'read' | 'update' | 'create' | 'stream';

const RETRY_STATUSES: Record<CallKind, ReadonlySet<number>> = {
  read: new Set([502, 503, 504]),
  update: new Set([502, 503, 504]),
  create: new Set([502, 503]),
  stream: new Set(),
};

const RESET_CODES = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);

export function isRetryable(kind: CallKind, error: unknown): boolean {
  if (!(error instanceof ServiceError)) return false;
  if (neverReachedServer(error)) return true;
  if (error.status !== undefined) return RETRY_STATUSES[kind].has(error.status);
  if (kind === 'read' || kind === 'update') {
    // A reset with no response at all: typically a keep-alive socket the server had closed.
    const code = (error.cause as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' && RESET_CODES.has(code) && error.partialText === undefined;
  }
  return false;
}

/** Full jitter: a random delay between 0 and base * 2^attempt, capped. */
export function backoffDelay(
  attempt: number,
  baseMs: number,
  capMs = 10_000,
  random: () => number = Math.random,
): number {
  return Math.floor(random() * Math.min(capMs, baseMs * 2 ** attempt));
}

/** Waits, unless the call is aborted first (then rejects with the abort reason). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
