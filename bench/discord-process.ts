// Runs bench/discord-replica.ts as a process of its own and waits until it is connected.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface ReplicaProcess {
  /** Stops it (SIGTERM, answers drained) and resolves with the REST calls it made. */
  stop(): Promise<number>;
}

export async function startReplicaProcess(env: Record<string, string>): Promise<ReplicaProcess> {
  const script = fileURLToPath(new URL('./discord-replica.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: string) => {
      output += chunk;
      if (output.includes('ready\n')) resolve();
    });
    void exited.then(() => reject(new Error(`discord replica exited before it was ready`)));
  });
  let stopped: Promise<number> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        child.kill('SIGTERM');
        await exited;
        return Number(/calls (\d+)/.exec(output)?.[1] ?? NaN);
      })();
      return stopped;
    },
  };
}
