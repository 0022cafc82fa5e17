// Starts a real redis-server on a free loopback port for the Redis tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';

export const REDIS_SERVER = '/usr/bin/redis-server';
export const hasRedisServer = existsSync(REDIS_SERVER);

export interface RedisServer {
  url: string;
  port: number;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** A port the OS just handed out (redis-server does not accept --port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServerOptions {
  /** A port of its own (a restart on the same address); a free one otherwise. */
  port?: number;
  /** Keeps its data in this folder (append-only file), so a restart finds it again. */
  dir?: string;
  /** Refuses connections beyond this many (Redis's maxclients). */
  maxClients?: number;
}

export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const persistence = options.dir
    ? ['--dir', options.dir, '--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no'];
  const child: ChildProcess = spawn(
    REDIS_SERVER,
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence],
      ...(options.maxClients ? ['--maxclients', String(options.maxClients)] : []),
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume(); // keep draining its log so it never blocks on a full pipe
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    // SIGKILL by default; SIGTERM lets a persistent server write its data down first.
    stop: (signal: NodeJS.Signals = 'SIGKILL') =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}
