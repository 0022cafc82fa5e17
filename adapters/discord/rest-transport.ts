// discord.js's request function on our undici and a given dispatcher (the proxy's), in the shape
// @discordjs/rest's own returns: a plain object with its own `status` and `ok`. Not fetch: its
// Response is not the global class, so @discordjs/rest would copy it field by field for its
// `response` event and lose both getters (every call counted as failed), and fetch hides a
// reset connection's ECONNRESET in `cause`, which @discordjs/rest retries only when it sees it.
import { STATUS_CODES } from 'node:http';
import type { RESTOptions } from 'discord.js';
import { request, type Dispatcher } from 'undici';

type MakeRequest = RESTOptions['makeRequest'];

export function restThrough(dispatcher: Dispatcher): MakeRequest {
  return async (url, init) => {
    const response = await request(url, {
      method: (init.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: init.headers as Record<string, string> | undefined,
      body: bodyOf(init.body),
      signal: init.signal ?? undefined,
      dispatcher,
    });
    const { body, statusCode } = response;
    return {
      body,
      arrayBuffer: () => body.arrayBuffer(),
      json: () => body.json(),
      text: () => body.text(),
      get bodyUsed() {
        return body.bodyUsed;
      },
      headers: new Headers(response.headers as Record<string, string>),
      status: statusCode,
      statusText: STATUS_CODES[statusCode] ?? '',
      ok: statusCode >= 200 && statusCode < 300,
    };
  };
}

/** The bodies @discordjs/rest sends: JSON text, or bytes (forms arrive encoded: form-body.ts). */
function bodyOf(body: unknown): string | Uint8Array | null {
  if (body === null || body === undefined) return null;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('discord: a request body that is neither text nor bytes');
}
