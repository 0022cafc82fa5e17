// A failure below HTTP (connect, reset, timeout, broken framing) as the ServiceError the caller
// sees: it names the method and path only, never the key or the full URL.
import { ServiceError } from './errors.js';
import {
  CLIENT_CLOSED_CODE,
  CLOSED_EARLY_CODE,
  CONNECT_TIMEOUT_CODE,
  H1ProtocolError,
} from './h1/errors.js';
import type { CallScope } from './scope.js';

/** Errors that prove the request never left this machine: safe to retry for any method. */
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  CONNECT_TIMEOUT_CODE,
]);

export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; errors?: unknown[]; cause?: unknown };
  if (typeof e.code === 'string') return e.code;
  // Node's happy-eyeballs connect reports an AggregateError of the per-address failures.
  if (Array.isArray(e.errors) && e.errors.length > 0) return errorCode(e.errors[0]);
  return e.cause === undefined ? undefined : errorCode(e.cause);
}

/** True when the failure happened while connecting, before any byte of the request was sent. */
export function neverReachedServer(error: unknown): boolean {
  return error instanceof ServiceError && CONNECT_CODES.has(errorCode(error.cause) ?? '');
}

/** A failure below HTTP (connect, reset, abort) as what the caller should see. */
export function transportError(error: unknown, scope: CallScope): unknown {
  if (scope.aborted) return scope.reason;
  if (error instanceof ServiceError) return error;
  const { method, path } = scope.where;
  const code = errorCode(error) ?? 'unknown';
  const details = { method, path, cause: error };
  if (error instanceof H1ProtocolError) {
    return new ServiceError('protocol', `${method} ${path}: ${error.message}`, details);
  }
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === CONNECT_TIMEOUT_CODE) {
    return new ServiceError('timeout', `${method} ${path}: connect timed out`, details);
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new ServiceError('timeout', `${method} ${path}: response timed out`, details);
  }
  if (code === CLIENT_CLOSED_CODE) {
    return new ServiceError('unavailable', `${method} ${path}: the client is closed`, details);
  }
  if (code === CLOSED_EARLY_CODE) {
    return new ServiceError(
      'unavailable',
      `${method} ${path}: the service closed the connection before the response ended`,
      details,
    );
  }
  if (CONNECT_CODES.has(code)) {
    return new ServiceError(
      'unavailable',
      `${method} ${path}: cannot connect to the service (${code})`,
      details,
    );
  }
  return new ServiceError(
    'unavailable',
    `${method} ${path}: connection to the service failed (${code})`,
    details,
  );
}
