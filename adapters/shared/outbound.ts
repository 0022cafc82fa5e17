// Slack's and Discord's API calls, their WebSockets where the SDK takes a dispatcher, and file
// transfers, through the standard proxy variables (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), as the
// service client goes: one undici EnvHttpProxyAgent, built from the values `chatbridge start`
// read (never from process.env behind the caller's back). Without a proxy the SDKs keep their
// own transports, so nothing changes for the common case.
import type { Socket } from 'node:net';
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import { createDispatcher, type ProxySettings } from '../../src/service/index.js';

/** A fetch as the SDKs call it: an address, not a Request. */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;

export interface Outbound {
  /** For SDK parts that take an undici dispatcher (Slack's Socket Mode, Discord's REST). */
  dispatcher: Dispatcher;
  /** fetch through that dispatcher. */
  fetch: FetchLike;
  /** Its connections still open: a WebSocket's leaves the dispatcher at its upgrade. */
  sockets: Set<Socket>;
}

// As the service client's default. It bounds reaching the proxy; a proxy that then never
// answers CONNECT is bounded by each call's own time limit.
const CONNECT_MS = 10_000;

// Calls still running when an adapter stops, after its answers drained, are strays (a hung
// proxy or API): they get a second to end, then are cut, so stopping never waits on them.
const CLOSE_GRACE_MS = 1_000;

type UndiciInit = NonNullable<Parameters<typeof undiciFetch>[1]>;

/** The proxied transport, or undefined without a proxy. Close its dispatcher when done. */
export function proxiedOutbound(proxy: ProxySettings | undefined): Outbound | undefined {
  if (!proxy) return undefined;
  const sockets = new Set<Socket>();
  const dispatcher = createDispatcher({
    connectMs: CONNECT_MS,
    proxy,
    onSocket: (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    },
  });
  const proxiedFetch = async (input: string | URL, init?: RequestInit) => {
    const form = init?.body instanceof FormData ? await encodeForm(init.body, init.headers) : {};
    const options = { ...init, ...form } as UndiciInit;
    const response = await undiciFetch(input, { ...options, dispatcher });
    return response as unknown as Response;
  };
  return { dispatcher, fetch: proxiedFetch, sockets };
}

/**
 * Closes the transport: calls still running get CLOSE_GRACE_MS, then are cut; a WebSocket's
 * connection still open (its close handshake done or given up by its SDK) is ended too.
 */
export async function closeOutbound(
  outbound: Outbound | undefined,
  graceMs = CLOSE_GRACE_MS,
): Promise<void> {
  if (!outbound) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), graceMs);
  });
  const ended = await Promise.race([
    outbound.dispatcher.close().then(() => 'closed' as const),
    late,
  ]);
  clearTimeout(timer);
  if (ended === 'late') await outbound.dispatcher.destroy();
  for (const socket of outbound.sockets) socket.destroy();
}

/**
 * A FormData body as bytes, with its multipart content type set among `headers`. Each undici
 * knows only its own FormData class (Node's bundled one, the project's, discord.js's): another's
 * would be sent as the text "[object FormData]". Bytes every version sends as they are.
 */
export async function encodeForm(
  form: FormData,
  headers?: ConstructorParameters<typeof Headers>[0],
): Promise<{ body: Uint8Array; headers: Record<string, string> }> {
  const encoded = new Response(form);
  const merged = new Headers(headers);
  merged.set('content-type', encoded.headers.get('content-type') ?? 'multipart/form-data');
  return {
    body: new Uint8Array(await encoded.arrayBuffer()),
    headers: Object.fromEntries(merged),
  };
}
