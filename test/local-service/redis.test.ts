import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPieces, startHarness } from './helpers.js';

const REDIS = '/usr/bin/redis-server';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

let redis: ChildProcess | undefined;
let url = '';
beforeAll(async () => {
  if (!existsSync(REDIS)) return;
  const port = await freePort();
  redis = spawn(
    REDIS,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  // Ready when it says so on stdout.
  for await (const chunk of redis.stdout!) {
    if (String(chunk).includes('Ready to accept connections')) break;
  }
  url = `redis://127.0.0.1:${port}`;
});
afterAll(async () => {
  if (redis && redis.exitCode === null) {
    redis.kill('SIGTERM');
    await once(redis, 'exit');
  }
});

describe.skipIf(!existsSync(REDIS))('on Redis', () => {
  it('keeps everything across a restart, as on SQLite', async () => {
    let h = await startHarness({ storeUrl: url });
    const bot = await h.client.createChatbot({ name: 'Shared' });
    await h.client.addQaSource(bot.uuid, {
      question: 'Where is the harbour?',
      answer: 'The harbour lies east of the old lighthouse.',
    });
    const session = await h.client.createSession(bot.uuid);
    await readPieces(
      await h.client.streamMessage(session.uuid, { query: 'Where is the harbour?' }),
    );
    await h.close();

    h = await startHarness({ storeUrl: url });
    try {
      expect((await h.client.listChatbots()).map((c) => c.uuid)).toEqual([bot.uuid]);
      expect(await h.client.listMessages(session.uuid)).toHaveLength(1);
      const text = (
        await readPieces(
          await h.client.streamMessage(session.uuid, { query: 'Where is the harbour?' }),
        )
      ).join('');
      expect(text).toContain('east of the old lighthouse');
    } finally {
      await h.close();
    }
  });
});
