// The service client with every call counted and timed by endpoint (the client method's name)
// and code ('ok' or the ServiceError kind). A wrapper outside src/service, so the client itself
// stays a library with no metrics in it. A stream counts once, when it ends.
import type { AnswerStream, ServiceClient } from '../service/api.js';
import { ServiceError } from '../service/errors.js';
import type { ServiceCallObserver } from './metrics.js';

function codeOf(error: unknown): string {
  if (error instanceof ServiceError) return error.kind;
  if ((error as { name?: unknown } | undefined)?.name === 'AbortError') return 'aborted';
  return 'error';
}

function observedStream(stream: AnswerStream, done: (code: string) => void): AnswerStream {
  return {
    get received() {
      return stream.received;
    },
    cancel: (reason?: unknown) => stream.cancel(reason),
    async *[Symbol.asyncIterator]() {
      let code = 'ok';
      try {
        yield* stream;
      } catch (error) {
        code = codeOf(error);
        throw error;
      } finally {
        done(code);
      }
    },
  };
}

export function observeServiceClient(
  client: ServiceClient,
  observer: ServiceCallObserver,
): ServiceClient {
  return new Proxy(client, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function' || property === 'close' || typeof property !== 'string') {
        return value;
      }
      const endpoint = property;
      return async (...args: unknown[]) => {
        const started = performance.now();
        const seconds = () => (performance.now() - started) / 1000;
        let result: unknown;
        try {
          result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } catch (error) {
          observer.serviceCall(endpoint, codeOf(error), seconds());
          throw error;
        }
        if (endpoint === 'streamMessage') {
          return observedStream(result as AnswerStream, (code) =>
            observer.serviceCall(endpoint, code, seconds()),
          );
        }
        observer.serviceCall(endpoint, 'ok', seconds());
        return result;
      };
    },
  });
}
