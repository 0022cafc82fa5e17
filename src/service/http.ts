// One HTTP exchange with the service: builds the URL and headers, sends through undici, and
// returns the status with the body as a TextBody. Answer streams have a dispatcher of their own
// (see dispatchers.ts). Transport failures become ServiceErrors that carry the method and path
// only (never the key or the full URL).
import type { Dispatcher, FormData } from 'undici';
import type { ServiceTimeouts } from './api.js';
import { createDispatcher, type ProxySettings } from './dispatchers.js';
import { ServiceError } from './errors.js';
import type { CallScope } from './scope.js';
import { TextBody } from './stream.js';
import { transportError } from './transport-error.js';

export interface HttpRequest {
  method: 'GET' | 'POST';
  /** Path below the base, starting with /api/v1/, ids already encoded. */
  path: string;
  accept: string;
  /** Builds the body afresh for each attempt (a multipart stream cannot be replayed). */
  body?: () => string | FormData;
  /** A long-lived answer stream: goes through the dispatcher with no cap on connections. */
  stream?: boolean;
}

/** Status, headers, and the body streaming into a TextBody. */
export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: TextBody;
}

export interface TransportConfig {
  baseUrl: string;
  apiKey: string;
  timeouts: ServiceTimeouts;
  connections: number;
  dispatcher?: Dispatcher;
  ca?: string | string[] | undefined;
  proxy?: ProxySettings | undefined;
}

export class Transport {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly calls: Dispatcher;
  private readonly streams: Dispatcher;
  /** The dispatchers this transport made (an injected one is closed by its owner). */
  private readonly owned: Dispatcher[];
  private readonly authorization: string;

  constructor(config: TransportConfig) {
    let url: URL;
    try {
      url = new URL(config.baseUrl);
    } catch {
      throw ServiceError.validation('baseUrl', 'must be an absolute http(s) address');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw ServiceError.validation('baseUrl', 'must use http or https');
    }
    if (typeof config.apiKey !== 'string' || config.apiKey.trim() === '') {
      throw ServiceError.validation('apiKey', 'is required');
    }
    // A line break in a header value would let the key forge other headers.
    if ([...config.apiKey].some((char) => char < ' ' || char === '\x7f')) {
      throw ServiceError.validation('apiKey', 'must not contain control characters');
    }
    this.origin = url.origin;
    // Tolerate a trailing slash and a base given with the /api/v1 suffix already on it.
    this.basePath = url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    this.authorization = `Bearer ${config.apiKey}`;
    if (config.dispatcher) {
      // An injected dispatcher (a test double, the caller's own agent) carries every call.
      this.calls = this.streams = config.dispatcher;
      this.owned = [];
    } else {
      const options = { connectMs: config.timeouts.connectMs, ca: config.ca, proxy: config.proxy };
      this.calls = createDispatcher(options, config.connections);
      this.streams = createDispatcher(options);
      this.owned = [this.calls, this.streams];
    }
  }

  /** Resolves once the response headers are in; the body then streams into a TextBody. */
  async send(request: HttpRequest, scope: CallScope): Promise<HttpResponse> {
    if (scope.aborted) throw scope.reason;
    const headers: Record<string, string> = {
      authorization: this.authorization,
      accept: request.accept,
      'user-agent': 'chatbridge',
    };
    const body = request.body?.();
    // undici sets the multipart Content-Type (with its boundary) itself.
    if (typeof body === 'string') headers['content-type'] = 'application/json';
    scope.armFirstByte();
    const dispatcher = request.stream ? this.streams : this.calls;
    return new Promise<HttpResponse>((resolve, reject) => {
      const handler = new ResponseHandler(scope, resolve, reject);
      dispatcher.dispatch(
        {
          origin: this.origin,
          path: this.basePath + request.path,
          method: request.method,
          headers,
          body,
          // Our own timers (CallScope) measure first byte and idle time; undici's are off.
          headersTimeout: 0,
          bodyTimeout: 0,
        },
        handler,
      );
    });
  }

  /** Resolves once every response in flight has ended; later calls fail as "client closed". */
  async close(): Promise<void> {
    await Promise.all(this.owned.map((dispatcher) => dispatcher.close()));
  }
}

/**
 * Receives one response straight from undici's parser (no Readable in between): every body
 * frame goes to the TextBody as it is parsed, and the body's backpressure and cancel act on
 * the connection through undici's controller.
 */
class ResponseHandler implements Dispatcher.DispatchHandler {
  private controller: Dispatcher.DispatchController | undefined;
  private body: TextBody | undefined;
  private done = false;

  constructor(
    private readonly scope: CallScope,
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    if (scope.aborted) this.onAbort();
    else scope.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.scope.aborted) controller.abort(abortError(this.scope.reason));
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200 || this.done) return; // 1xx informational: the real answer follows
    this.body = new TextBody(this.scope, {
      pause: () => controller.pause(),
      resume: () => controller.resume(),
      abort: () => controller.abort(new Error('the answer was cancelled')),
    });
    this.resolve({ status: statusCode, headers, body: this.body });
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.body?.push(chunk);
  }

  onResponseEnd(): void {
    this.finish();
    this.body?.end();
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    this.finish();
    const mapped = transportError(error, this.scope);
    if (this.body) this.body.fail(mapped);
    else this.reject(mapped);
  }

  private readonly onAbort = (): void => {
    // Before the headers the promise rejects at once, even if the request is still queued.
    if (!this.body) {
      this.finish();
      this.reject(this.scope.reason);
    }
    this.controller?.abort(abortError(this.scope.reason));
  };

  private finish(): void {
    this.done = true;
    this.scope.signal.removeEventListener('abort', this.onAbort);
  }
}

/** undici's controller wants an Error; the caller's reason is mapped back by transportError. */
function abortError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error('the call was aborted');
}
