// The life of one client call: the caller's AbortSignal, the total deadline and the phase timer
// (first byte, then idle between chunks) all end in one AbortController that the transport
// (undici) listens to.
// A timeout aborts with a ServiceError of kind "timeout"; a caller abort with the caller's reason.
import { ServiceError } from './errors.js';
import type { ServiceTimeouts } from './api.js';

export interface Where {
  method: string;
  path: string;
}

export class CallScope {
  private readonly controller = new AbortController();
  private readonly totalTimer: NodeJS.Timeout;
  private phaseTimer: NodeJS.Timeout | undefined;
  private idle = false;
  private unlinkCaller: (() => void) | undefined;
  private ended = false;

  constructor(
    readonly where: Where,
    private readonly timeouts: ServiceTimeouts,
    callerSignal?: AbortSignal,
  ) {
    if (callerSignal) {
      if (callerSignal.aborted) this.controller.abort(callerSignal.reason);
      else {
        const onAbort = () => this.abort(callerSignal.reason);
        callerSignal.addEventListener('abort', onAbort, { once: true });
        this.unlinkCaller = () => callerSignal.removeEventListener('abort', onAbort);
      }
    }
    this.totalTimer = setTimeout(
      () => this.abort(this.timeoutError('total', timeouts.totalMs)),
      timeouts.totalMs,
    );
    // The socket keeps the process alive while a call is under way; the timers need not.
    this.totalTimer.unref();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  /** Why the call was aborted: the caller's reason or a timeout ServiceError. */
  get reason(): unknown {
    return this.controller.signal.reason;
  }

  abort(reason: unknown): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
    this.end();
  }

  /** Starts waiting for the first byte of an attempt's response. */
  armFirstByte(): void {
    this.idle = false;
    this.setPhase(this.timeouts.firstByteMs, 'first-byte');
  }

  /** Body bytes arrived: from now on the limit is the idle time between chunks. */
  touch(): void {
    if (this.ended) return;
    if (this.idle && this.phaseTimer) {
      this.phaseTimer.refresh();
      return;
    }
    this.idle = true;
    this.setPhase(this.timeouts.idleMs, 'idle');
  }

  /** We stopped reading (consumer is slow): silence is ours, not the server's. */
  holdPhase(): void {
    clearTimeout(this.phaseTimer);
    this.phaseTimer = undefined;
  }

  /** Clears the timers and unlinks the caller's signal; idempotent. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.totalTimer);
    clearTimeout(this.phaseTimer);
    this.unlinkCaller?.();
  }

  private setPhase(ms: number, what: 'first-byte' | 'idle'): void {
    clearTimeout(this.phaseTimer);
    if (this.ended) return;
    this.phaseTimer = setTimeout(() => this.abort(this.timeoutError(what, ms)), ms);
    this.phaseTimer.unref();
  }

  private timeoutError(what: 'first-byte' | 'idle' | 'total', ms: number): ServiceError {
    const text = {
      'first-byte': `no response within ${ms} ms (first-byte timeout)`,
      idle: `no data for ${ms} ms (idle timeout)`,
      total: `call took longer than ${ms} ms (total timeout)`,
    }[what];
    const { method, path } = this.where;
    return new ServiceError('timeout', `${method} ${path}: ${text}`, {
      method,
      path,
      rule: `${what}-timeout`,
    });
  }
}

/** A copy of a ServiceError with the text received before a stream broke. */
export function withPartialText(error: ServiceError, partialText: string): ServiceError {
  return new ServiceError(error.kind, error.message, {
    status: error.status,
    method: error.method,
    path: error.path,
    body: error.body,
    json: error.json,
    field: error.field,
    rule: error.rule,
    retryAfterMs: error.retryAfterMs,
    existing: error.existing,
    cause: error.cause,
    partialText,
  });
}
