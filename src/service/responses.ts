// Turns an HTTP answer into a value or a ServiceError. Bodies are read as text first and parsed
// as JSON only when they parse: error bodies can be HTML or plain sentences.
import { ServiceError, type ServiceErrorKind } from './errors.js';
import { normalizeDataSource } from './normalize.js';
import type { Where } from './scope.js';

/** Error bodies kept on the error, at most this many characters. */
const MAX_BODY_CHARS = 64 * 1024;

export function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export function kindOfStatus(status: number): ServiceErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404 || status === 405 || status === 410) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 429) return 'rate_limited';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'unavailable';
  // 400, 413, 415, 422 and the other refusals of what we sent.
  if (status >= 400) return 'validation';
  return 'protocol';
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: unknown, now: number): number | undefined {
  const header = Array.isArray(value) ? value[0] : value;
  if (typeof header !== 'string' || header.trim() === '') return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(header)) return Math.round(Number(header) * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The explanatory sentence of an error body, in the shapes services use. */
function bodyMessage(json: unknown): string | undefined {
  if (!isRecord(json)) return undefined;
  const error = json.error;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  if (typeof error === 'string') return error;
  for (const key of ['message', 'detail', 'msg']) {
    if (typeof json[key] === 'string') return json[key];
  }
  return undefined;
}

function bodyField(json: unknown, key: 'field' | 'rule'): string | undefined {
  if (!isRecord(json)) return undefined;
  const value = isRecord(json.error) ? json.error[key] : json[key];
  return typeof value === 'string' ? value : undefined;
}

/** The data source a 409 names: the body itself, or one level down. */
function existingSource(json: unknown) {
  if (!isRecord(json)) return undefined;
  if (typeof json.uuid === 'string') return normalizeDataSource(json);
  for (const key of ['data_source', 'existing', 'data']) {
    const inner = json[key];
    if (isRecord(inner) && typeof inner.uuid === 'string') return normalizeDataSource(inner);
  }
  if (isRecord(json.error)) return existingSource(json.error);
  return undefined;
}

export interface ErrorContext {
  where: Where;
  /** 409 bodies of this endpoint hold the data source that already exists. */
  conflictIsSource: boolean;
  now: number;
  /** Removes the API key should the server echo it. */
  scrub: (text: string) => string;
}

export function errorFromResponse(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  rawText: string,
  context: ErrorContext,
): ServiceError {
  const { method, path } = context.where;
  const body = context.scrub(rawText.slice(0, MAX_BODY_CHARS));
  const parsed = parseJson(body);
  const json = parsed.ok ? parsed.value : undefined;
  const kind = kindOfStatus(status);
  const fromBody = bodyMessage(json);
  // A short plain-text body is the explanation; an HTML page is not shown in the message.
  const plain = body.trim();
  const sentence =
    fromBody ?? (plain !== '' && plain.length <= 300 && !plain.startsWith('<') ? plain : undefined);
  const retryAfterMs = parseRetryAfter(headers['retry-after'], context.now);
  const message =
    kind === 'rate_limited' && fromBody !== undefined
      ? fromBody // the chatbot's rate_limit_message: the bridge shows it as is
      : `${sentence ?? describeStatus(status)} (${status} on ${method} ${path})`;
  return new ServiceError(kind, context.scrub(message), {
    status,
    method,
    path,
    body,
    json,
    field: bodyField(json, 'field'),
    rule: bodyField(json, 'rule'),
    retryAfterMs,
    existing: status === 409 && context.conflictIsSource ? existingSource(json) : undefined,
  });
}

function describeStatus(status: number): string {
  const known: Record<number, string> = {
    400: 'the service refused the request',
    401: 'the API key was not accepted',
    403: 'the API key may not do this',
    404: 'not found',
    405: 'no such operation',
    409: 'already exists',
    413: 'request too large',
    415: 'unsupported content type',
    422: 'the service refused the values sent',
    429: 'rate limited',
  };
  if (known[status]) return known[status];
  if (status >= 300 && status < 400) return 'unexpected redirect (check the base URL)';
  return status >= 500 ? 'the service failed' : 'unexpected status';
}

export function protocolError(where: Where, status: number, body: string, why: string) {
  return new ServiceError('protocol', `${where.method} ${where.path}: ${why}`, {
    status,
    method: where.method,
    path: where.path,
    body: body.slice(0, MAX_BODY_CHARS),
  });
}
