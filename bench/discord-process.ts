// Runs bench/discord-replica.ts as a process of its own and waits until it is connected.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TOKEN } from '../test/discord/fake/discord.js';
import { API_KEY, type EngineRig } from '../test/discord/engine-rig.js';

export interface ReplicaProcess {
  /** Stops it (SIGTERM, answers drained) and resolves with the REST calls it made. */
  stop(): Promise<number>;
}

/**
 * Starts a second bot process on `first`'s fake Discord and local service, its state under
 * `keyPrefix` on the Redis at `redisUrl`; `shards` sets DISCORD_SHARDS / DISCORD_SHARD_COUNT.
 */
export async function startReplicaProcess(
  first: EngineRig,
  redisUrl: string,
  keyPrefix: string,
  shards: Record<string, string> = {},
): Promise<ReplicaProcess> {
  const env = {
    REDIS_URL: redisUrl,
    KEY_PREFIX: keyPrefix,
    SERVICE_URL: first.service.url,
    SERVICE_KEY: API_KEY,
    DISCORD_TOKEN: TOKEN,
    DISCORD_API_URL: first.fake.apiUrl,
    ...shards,
  };
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
