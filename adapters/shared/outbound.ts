// Slack's and Discord's API calls, their WebSockets where the SDK takes a dispatcher, and file
// transfers, through the standard proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), as the
// service client goes: one undici EnvHttpProxyAgent, built from the values `chatbridge start`
// read (never from process.env behind the caller's back). Without a proxy the SDKs keep their
// own transports, so nothing changes for the common case.
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { createDispatcher, type ProxySettings } from '../../src/service/index.js';

export interface Outbound {
  /** For SDK parts that take an undici dispatcher (Slack's Socket Mode WebSocket). */
  dispatcher: Dispatcher;
  /** fetch through that dispatcher. */
  fetch: typeof fetch;
}

// As the service client's default: long enough for a proxy that is slow to open a tunnel.
const CONNECT_MS = 10_000;

type UndiciInput = Parameters<typeof undiciFetch>[0];
type UndiciInit = NonNullable<Parameters<typeof undiciFetch>[1]>;

/** The proxied transport, or undefined without a proxy. Close its dispatcher when done. */
export function proxiedOutbound(proxy: ProxySettings | undefined): Outbound | undefined {
  if (!proxy) return undefined;
  const dispatcher = createDispatcher({ connectMs: CONNECT_MS, proxy });
  const proxiedFetch = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    let options = { ...init } as UndiciInit;
    if (init?.body instanceof FormData) {
      const form = await encodeForm(init.body);
      const headers = new Headers(init.headers);
      headers.set('content-type', form.contentType);
      options = { ...options, body: form.body, headers: Object.fromEntries(headers) };
    }
    const response = await undiciFetch(input as UndiciInput, { ...options, dispatcher });
    return response as unknown as Response;
  };
  return { dispatcher, fetch: proxiedFetch };
}

/**
 * A FormData body as bytes and its multipart content type. Each undici knows only its own
 * FormData class (Node's bundled one, the project's, discord.js's): another's would be sent as
 * the text "[object FormData]". Bytes every version sends as they are.
 */
export async function encodeForm(
  form: FormData,
): Promise<{ body: Uint8Array; contentType: string }> {
  const encoded = new Response(form);
  return {
    body: new Uint8Array(await encoded.arrayBuffer()),
    contentType: encoded.headers.get('content-type') ?? 'multipart/form-data',
  };
}
