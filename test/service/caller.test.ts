// The Caller on its own, behind a scripted transport: what is retried and how often, what a
// non-2xx becomes, and that a body that is not JSON is a protocol error naming the call.
import { describe, expect, it } from 'vitest';
import { Caller, type Call } from '../../src/service/caller.js';
import { DEFAULT_TIMEOUTS } from '../../src/service/client.js';
import { isServiceError } from '../../src/service/errors.js';
import type { HttpRequest, HttpResponse } from '../../src/service/http.js';
import type { CallScope } from '../../src/service/scope.js';
import { TextBody } from '../../src/service/stream.js';

const noop = () => undefined;

function response(scope: CallScope, status: number, text: string): HttpResponse {
  const body = new TextBody(scope, { pause: noop, resume: noop, abort: noop });
  body.push(Buffer.from(text));
  body.end();
  return { status, headers: {}, body };
}

/** A transport answering each attempt with the next [status, body]; records the requests. */
function scripted(answers: Array<[number, string]>) {
  const requests: HttpRequest[] = [];
  const transport = {
    send: async (request: HttpRequest, scope: CallScope) => {
      requests.push(request);
      const [status, text] = answers.shift() ?? [500, 'script ran out'];
      return response(scope, status, text);
    },
  };
  const caller = new Caller({
    transport,
    timeouts: DEFAULT_TIMEOUTS,
    apiKey: 'sk-secret',
    maxRetries: 2,
    retryBaseMs: 1,
  });
  return { caller, requests };
}

const read: Call<unknown> = {
  kind: 'read',
  method: 'GET',
  path: '/api/v1/chatbots',
  parse: (json) => json,
};

describe('Caller', () => {
  it('retries a read on 503 and returns the parsed body', async () => {
    const { caller, requests } = scripted([
      [503, 'busy'],
      [200, '[{"uuid":"a"}]'],
    ]);
    expect(await caller.run(read)).toEqual([{ uuid: 'a' }]);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({ method: 'GET', accept: 'application/json', stream: false });
  });

  it('gives up after maxRetries and throws the mapped error', async () => {
    const { caller, requests } = scripted([
      [503, 'busy'],
      [503, 'busy'],
      [503, 'busy'],
    ]);
    const error = await caller.run(read).catch((e: unknown) => e);
    expect(isServiceError(error, 'unavailable')).toBe(true);
    expect(requests).toHaveLength(3);
  });

  it('never retries a create on 504 (the service may have done the work)', async () => {
    const { caller, requests } = scripted([[504, 'gateway timeout']]);
    const create = { ...read, kind: 'create' as const, method: 'POST' as const };
    await expect(caller.run(create)).rejects.toSatisfy((e) => isServiceError(e));
    expect(requests).toHaveLength(1);
  });

  it('turns a body that is not JSON into a protocol error with the key scrubbed', async () => {
    const { caller } = scripted([[200, '<html>sk-secret</html>']]);
    const error = await caller.run(read).catch((e: unknown) => e);
    expect(isServiceError(error, 'protocol')).toBe(true);
    expect(JSON.stringify(error)).not.toContain('sk-secret');
    expect((error as { body?: string }).body).not.toContain('sk-secret');
  });
});
