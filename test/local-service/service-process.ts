// `chatbridge service` as a process of its own on a given store, with a client for it: for the
// tests of several processes on one SQLite file and of a crash (kill -9) mid-write.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { createServiceClient } from '../../src/service/index.js';
import type { ServiceClient } from '../../src/service/api.js';
import { built } from '../run-cli.js';

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  client: ServiceClient;
  /** SIGKILL: no shutdown code runs, as in a crash. */
  crash(): Promise<void>;
  /** SIGTERM; resolves with its exit code (null when a signal ended it). */
  stop(): Promise<number | null>;
}

export async function startServiceProcess(
  storeUrl: string,
  apiKey: string,
): Promise<ServiceProcess> {
  const script = built('test/local-service/fixtures/run-service.ts');
  const child = spawn(
    process.execPath,
    [script, '--port', '0', '--api-key', apiKey, '--store', storeUrl],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'silent' } },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const exited = once(child, 'exit').then(() => {
    throw new Error(`chatbridge service exited before listening: ${stderr}`);
  });
  const [line] = (await Promise.race([once(lines, 'line'), exited])) as [string];
  const url = /(http:\/\/\S+:\d+)/.exec(line)?.[1];
  if (!url) throw new Error(`no address in "${line}"`);
  const client = createServiceClient({ baseUrl: url, apiKey, maxRetries: 0 });
  const ended = async (signal: NodeJS.Signals): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    const exit = once(child, 'exit') as Promise<[number | null]>;
    child.kill(signal);
    return (await exit)[0];
  };
  return {
    child,
    url,
    client,
    crash: async () => void (await ended('SIGKILL')),
    stop: () => ended('SIGTERM'),
  };
}
