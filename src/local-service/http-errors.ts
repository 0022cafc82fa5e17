// One error shape for every response: {"error": {"code", "message", "field"?}}. Known failures
// become their status; anything unexpected becomes a 500 without internals (never a stack).
import { CodedError, ErrorCode, isCodedError } from '../errors.js';
import { isServiceError } from '../service/errors.js';
import { isSqliteError, SqliteCode } from '../sqlite.js';

export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

/** A response chosen where the failure is known: its status and the body's `code` word. */
export class HttpError extends CodedError {
  constructor(
    readonly status: number,
    /** The word in the response body's error.code (the interface's, e.g. "not_found"). */
    readonly wireCode: string,
    message: string,
    readonly options: { field?: string; headers?: Record<string, string>; body?: unknown } = {},
  ) {
    super(ErrorCode.HttpResponse, message);
    this.name = 'HttpError';
  }

  static notFound(what: string): HttpError {
    return new HttpError(404, 'not_found', `${what} not found`);
  }

  static badRequest(field: string, rule: string): HttpError {
    return new HttpError(400, 'validation', `${field}: ${rule}`, { field });
  }
}

export interface ErrorResponse {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

const errorBody = (code: string, message: string, field?: string): ErrorBody => ({
  error: field === undefined ? { code, message } : { code, message, field },
});

/** Fastify's own errors that are the caller's fault, mapped to what the caller should read. */
function fromFastifyCode(code: string, limits: ErrorLimits): ErrorResponse | undefined {
  const make = (status: number, c: string, message: string, field?: string) => ({
    status,
    body: errorBody(c, message, field),
    headers: {},
  });
  switch (code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return make(400, 'invalid_json', 'body: must be valid JSON', 'body');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return make(413, 'too_large', `body: must be at most ${limits.bodyLimit} bytes`, 'body');
    case 'FST_REQ_FILE_TOO_LARGE':
      return make(413, 'too_large', `file: must be at most ${limits.maxUploadBytes} bytes`, 'file');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return make(415, 'unsupported_media_type', 'Content-Type must be application/json');
    case 'FST_FILES_LIMIT':
      return make(400, 'validation', 'file: send exactly one file per upload', 'file');
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return make(400, 'validation', 'body: too many form fields', 'body');
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return make(
        400,
        'validation',
        'file: is required (send multipart/form-data with a file field)',
        'file',
      );
    default:
      return undefined;
  }
}

/** SQLite's "database is locked" (SQLITE_BUSY and its extended codes). */
export function isStoreBusy(error: unknown): boolean {
  return isSqliteError(error, SqliteCode.BUSY);
}

export interface ErrorLimits {
  bodyLimit: number;
  maxUploadBytes: number;
}

/** Our own errors' responses, chosen by their code. */
function fromCodedError(error: CodedError): ErrorResponse | undefined {
  switch (error.code) {
    case ErrorCode.HttpResponse: {
      const { status, wireCode, message, options } = error as HttpError;
      return {
        status,
        body: options.body ?? errorBody(wireCode, message, options.field),
        headers: options.headers ?? {},
      };
    }
    case ErrorCode.ServiceValidation: {
      const field = isServiceError(error) ? error.field : undefined;
      return { status: 400, body: errorBody('validation', error.message, field), headers: {} };
    }
    case ErrorCode.FileTypeUnsupported:
      return {
        status: 415,
        body: errorBody('unsupported_file_type', error.message, 'file'),
        headers: {},
      };
    default:
      return undefined;
  }
}

export function toErrorResponse(error: unknown, limits: ErrorLimits): ErrorResponse {
  const coded = isCodedError(error) ? fromCodedError(error) : undefined;
  if (coded) return coded;
  const code = (error as { code?: unknown } | null)?.code;
  if (isStoreBusy(error)) {
    // Another process held the store's write lock past the busy timeout: worth a retry.
    return {
      status: 503,
      body: errorBody('store_busy', 'the store is busy with another process; try again'),
      headers: { 'retry-after': '1' },
    };
  }
  const mapped = typeof code === 'string' ? fromFastifyCode(code, limits) : undefined;
  if (mapped) return mapped;
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = error instanceof Error ? error.message : 'bad request';
    return { status, body: errorBody('bad_request', message), headers: {} };
  }
  return { status: 500, body: errorBody('internal', 'internal error'), headers: {} };
}
