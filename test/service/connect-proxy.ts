// An HTTP CONNECT proxy on loopback for the proxy tests: opens a tunnel per CONNECT and records
// the targets asked for.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface ConnectProxy {
  url: string;
  /** host:port of every tunnel opened, in order. */
  tunnels: string[];
  /** The local port of each tunnel's upstream socket: the client port its target sees. */
  upstreamPorts: Set<number>;
  /** Resolves once no client holds a connection to the proxy (every tunnel closed). */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function startConnectProxy(): Promise<ConnectProxy> {
  const tunnels: string[] = [];
  const upstreamPorts = new Set<number>();
  const sockets = new Set<Socket>();
  const clients = new Set<Socket>();
  let onIdle: (() => void) | undefined;
  const proxy = createServer((socket) => {
    sockets.add(socket);
    clients.add(socket);
    socket.on('close', () => {
      clients.delete(socket);
      if (clients.size === 0) onIdle?.();
    });
    socket.on('error', () => {});
    socket.once('data', (head: Buffer) => {
      const target = /^CONNECT (\S+) HTTP\/1\.1/.exec(head.toString('latin1'))?.[1];
      if (!target) return void socket.end('HTTP/1.1 405 Method Not Allowed\r\n\r\n');
      tunnels.push(target);
      const [host, port] = target.split(':');
      const upstream = connect(Number(port), host, () => {
        upstreamPorts.add(upstream.localPort!);
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        socket.pipe(upstream).pipe(socket);
      });
      sockets.add(upstream);
      upstream.on('error', () => socket.destroy());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    tunnels,
    upstreamPorts,
    idle: () =>
      clients.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (onIdle = resolve)),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
