// Who connected to a fake platform: the client port of every request and WebSocket upgrade it
// served, so a proxy test can tell a call that came through the proxy's tunnel from one that
// went around it.
import type { IncomingMessage } from 'node:http';

export interface Peer {
  kind: 'http' | 'upgrade';
  /** The request's path (and query). */
  path: string;
  /** The client's port: a proxy tunnel's upstream port, or the bridge's own socket. */
  port: number;
}

export function peerOf(req: IncomingMessage, kind: Peer['kind']): Peer {
  return { kind, path: req.url ?? '/', port: req.socket.remotePort ?? 0 };
}
