// One call to the service, as the Handler behind every endpoint method: opens the call's scope
// (timeouts, the caller's signal), sends through the transport with the retry policy of its kind
// (retry.ts), maps a non-2xx answer to a ServiceError (responses.ts), and parses the JSON body or
// hands over the answer stream. Knows no endpoint; client.ts describes each one as a Call.
import type { FormData } from 'undici';
import type { AnswerStream, CallOptions, ServiceTimeouts } from './api.js';
import { ServiceError } from './errors.js';
import type { HttpRequest, Transport } from './http.js';
import { errorFromResponse, parseJson, protocolError } from './responses.js';
import { backoffDelay, isRetryable, sleep, type CallKind } from './retry.js';
import { CallScope, type Where } from './scope.js';
import type { TextBody } from './stream.js';

const JSON_ACCEPT = 'application/json';
// The stream's Content-Type is undocumented; we accept anything and decide nothing from it.
const STREAM_ACCEPT = 'text/plain, */*';

export interface Call<T> {
  kind: CallKind;
  method: 'GET' | 'POST';
  /** Full path from /api/v1 on. */
  path: string;
  body?: () => string | FormData;
  parse?: (json: unknown) => T;
  /** A 409 body names the data source that already exists. */
  conflictIsSource?: boolean;
}

export interface CallerConfig {
  transport: Pick<Transport, 'send'>;
  timeouts: ServiceTimeouts;
  apiKey: string;
  maxRetries: number;
  retryBaseMs: number;
}

export class Caller {
  constructor(private readonly config: CallerConfig) {}

  /** The key never appears in an error's text. */
  readonly scrub = (text: string): string => {
    const { apiKey } = this.config;
    return text.includes(apiKey) ? text.split(apiKey).join('***') : text;
  };

  /** A JSON call: resolves with the parsed body, or rejects with a ServiceError. */
  async run<T>(call: Call<T>, options?: CallOptions): Promise<T> {
    const scope = this.open(call, options);
    try {
      const body = await this.exchange(call, scope);
      const text = await body.readAll();
      const parsed = parseJson(text);
      if (!parsed.ok) {
        throw protocolError(scope.where, 200, this.scrub(text), 'the response is not JSON');
      }
      try {
        return call.parse!(parsed.value);
      } catch (error) {
        throw protocolError(scope.where, 200, this.scrub(text), (error as Error).message);
      }
    } finally {
      scope.end();
    }
  }

  /** An answer stream: resolves once the service answered 2xx; the body streams on. */
  async stream(call: Call<never>, options?: CallOptions): Promise<AnswerStream> {
    const scope = this.open(call, options);
    try {
      const body = await this.exchange(call, scope);
      // The scope lives on with the stream: it ends when the body ends, fails or is cancelled.
      body.whenSettled(() => scope.end());
      return body;
    } catch (error) {
      scope.end();
      throw error;
    }
  }

  private open(call: Call<unknown>, options: CallOptions | undefined): CallScope {
    const { timeouts } = this.config;
    const where: Where = { method: call.method, path: call.path };
    const limits = { ...timeouts, totalMs: options?.timeoutMs ?? timeouts.totalMs };
    return new CallScope(where, limits, options?.signal);
  }

  /** Sends with retries; resolves with the 2xx body, or throws the mapped error. */
  private async exchange(call: Call<unknown>, scope: CallScope): Promise<TextBody> {
    const { transport, maxRetries, retryBaseMs } = this.config;
    const request: HttpRequest = {
      method: call.method,
      path: call.path,
      accept: call.kind === 'stream' ? STREAM_ACCEPT : JSON_ACCEPT,
      stream: call.kind === 'stream',
      body: call.body,
    };
    for (let attempt = 0; ; attempt++) {
      let failure: unknown;
      try {
        const response = await transport.send(request, scope);
        if (response.status >= 200 && response.status < 300) return response.body;
        const text = await response.body.readAll();
        failure = errorFromResponse(response.status, response.headers, text, {
          where: scope.where,
          conflictIsSource: call.conflictIsSource ?? false,
          now: Date.now(),
          scrub: this.scrub,
        });
      } catch (error) {
        failure = error;
      }
      if (scope.aborted) throw scope.reason;
      if (attempt >= maxRetries || !isRetryable(call.kind, failure)) throw failure;
      const asked = failure instanceof ServiceError ? failure.retryAfterMs : undefined;
      const delay =
        asked !== undefined ? Math.min(asked, 10_000) : backoffDelay(attempt, retryBaseMs);
      await sleep(delay, scope.signal);
    }
  }
}
