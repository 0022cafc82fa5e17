// One coded error base: every error chatbridge throws on purpose carries a stable code, its
// message and cause; notices and HTTP statuses are chosen by that code.
import { describe, expect, it } from 'vitest';
import { AdminInputError, AdminRefusal } from '../src/admin/errors.js';
import { noticeFor } from '../src/bridge/notices.js';
import { SurfaceRateLimitError } from '../src/bridge/types.js';
import { ConfigError } from '../src/config.js';
import { CodedError, ErrorCode, isCodedError } from '../src/errors.js';
import { HttpError, toErrorResponse } from '../src/local-service/http-errors.js';
import { ServiceError } from '../src/service/errors.js';
import { LockLostError } from '../src/state/errors.js';
import { SecretKeyError } from '../src/state/secret-box.js';

describe('CodedError', () => {
  it('has one distinct code per name', () => {
    const codes = Object.values(ErrorCode);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('keeps code, message, cause and the subclass name', () => {
    const cause = new Error('socket hang up');
    const error = new ServiceError('unavailable', 'service down', { cause });
    expect(error).toBeInstanceOf(CodedError);
    expect(error).toMatchObject({ code: ErrorCode.ServiceUnavailable, message: 'service down' });
    expect(error.cause).toBe(cause);
    expect(error.name).toBe('ServiceError');
    expect(new SecretKeyError('bad key').name).toBe('SecretKeyError');
  });

  it('the errors derive from it, each with its code', () => {
    const cases: Array<[unknown, ErrorCode]> = [
      [new ConfigError(['x']), ErrorCode.ConfigInvalid],
      [new AdminInputError('--n', 'must be a number'), ErrorCode.AdminInput],
      [new AdminRefusal('no'), ErrorCode.AdminRefused],
      [new LockLostError('k', 'lease lost'), ErrorCode.LockLost],
      [new SurfaceRateLimitError(10), ErrorCode.SurfaceRateLimited],
      [HttpError.notFound('chatbot'), ErrorCode.HttpResponse],
    ];
    for (const [error, code] of cases) {
      expect(isCodedError(error, code)).toBe(true);
      expect(isCodedError(error, ErrorCode.ShuttingDown)).toBe(false);
    }
    expect(isCodedError(new Error('plain'))).toBe(false);
  });

  it('chooses the notice by code', () => {
    const timeout = new ServiceError('timeout', 'slow');
    expect(noticeFor(timeout, 'before', '').kind).toBe('timeout');
    const down = new ServiceError('unavailable', 'down');
    expect(noticeFor(down, 'before', '').kind).toBe('unavailable');
    expect(noticeFor(down, 'during', '').kind).toBe('cut_off');
    expect(noticeFor(new LockLostError('k', 'lease lost'), 'before', '').kind).toBe('error');
  });

  it('chooses the HTTP status by code', () => {
    const limits = { bodyLimit: 1, maxUploadBytes: 1 };
    expect(toErrorResponse(HttpError.notFound('chatbot'), limits)).toMatchObject({
      status: 404,
      body: { error: { code: 'not_found', message: 'chatbot not found' } },
    });
    expect(toErrorResponse(ServiceError.validation('name', 'is required'), limits)).toMatchObject({
      status: 400,
      body: { error: { code: 'validation', field: 'name' } },
    });
    expect(toErrorResponse(new LockLostError('k', 'lease lost'), limits).status).toBe(500);
  });
});
