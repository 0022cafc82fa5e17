// Several `chatbridge service` processes on one SQLite file, and a crash (kill -9) mid-burst:
// nothing acknowledged is lost, nothing is half-written, and what one process writes the other
// finds. Each process is a real child process on the same file. The crash test goes on with
// the first test's processes (one process start fewer): it stops one (SIGTERM: exit code 0)
// and kills the other.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServiceDb } from '../../src/local-service/db/open.js';
import type { SourceRecord } from '../../src/local-service/records.js';
import { Repository } from '../../src/local-service/repository.js';
import { isServiceError } from '../../src/service/errors.js';
import type { DataSource } from '../../src/service/types.js';
import { type Site, startSite } from './fixtures.js';
import { readPieces } from './helpers.js';
import { type ServiceProcess, startServiceProcess } from './service-process.js';

const KEY = 'process-key-0123456789';
let dir: string;
let storeUrl: string;
const running: ServiceProcess[] = [];
/** The two processes of the first test; the crash test goes on with them. */
let a: ServiceProcess | undefined;
let b: ServiceProcess | undefined;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chatbridge-procs-'));
  storeUrl = `sqlite://${join(dir, 'shared.sqlite')}`;
});
afterAll(async () => {
  await Promise.all(running.splice(0).map((p) => p.crash()));
  await rm(dir, { recursive: true, force: true });
});

async function start(storeUrl: string): Promise<ServiceProcess> {
  const process = await startServiceProcess(storeUrl, KEY);
  running.push(process);
  return process;
}

/** Runs the tasks, at most `width` at a time. */
async function inParallel<T>(tasks: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const lane = async () => {
    while (next < tasks.length) {
      const at = next++;
      results[at] = await tasks[at]!();
    }
  };
  await Promise.all(Array.from({ length: width }, lane));
  return results;
}

/** The chatbot's data sources as stored (the interface has no list of them), read beside the processes. */
async function storedSources(storeUrl: string, chatbot: string): Promise<SourceRecord[]> {
  const db = openServiceDb(storeUrl);
  try {
    return await new Repository(db).listSources(chatbot);
  } finally {
    db.close();
  }
}

async function answer(p: ServiceProcess, session: string, query: string): Promise<string> {
  return (await readPieces(await p.client.streamMessage(session, { query }))).join('');
}

describe('two service processes on one SQLite file', () => {
  it('keep every source either writes, find each other’s facts, and share one rate limit', async () => {
    [a, b] = await Promise.all([start(storeUrl), start(storeUrl)]);
    const bot = await a!.client.createChatbot({ name: 'Shared', rate_limit: [100, 60] });

    const adds = Array.from({ length: 200 }, (_, i) => () => {
      const via = i % 2 === 0 ? a! : b!;
      return via.client.addQaSource(bot.uuid, {
        question: `What is item ${i}?`,
        answer: `Item ${i} is stored as number ${i}.`,
      });
    });
    const created = await inParallel(adds, 16);
    const expected = created.map((s) => s.uuid).sort();
    const listed = await storedSources(storeUrl, bot.uuid);
    expect(listed.map((s) => s.uuid).sort()).toEqual(expected);
    expect(listed.every((s) => s.status === 'success')).toBe(true);
    // Both processes answer from all of them: a pair written through A, asked through B.
    const spot = await b!.client.createSession(bot.uuid);
    expect(await answer(b!, spot.uuid, 'What is item 198?')).toContain('number 198');

    // A fact written through one process is answered through the other.
    await a!.client.addQaSource(bot.uuid, {
      question: 'What is the vault code?',
      answer: 'The vault code is zebra-4417.',
    });
    const session = await b!.client.createSession(bot.uuid);
    expect(await answer(b!, session.uuid, 'What is the vault code?')).toContain('zebra-4417');

    // The same bytes uploaded through both at once: one source, one 409.
    const file = new TextEncoder().encode('The lighthouse keeper polishes the lamp on Sundays.');
    const uploads = await Promise.allSettled(
      [a!, b!].map((p) => p.client.uploadSource(bot.uuid, { file, file_name: 'lamp.txt' })),
    );
    expect(uploads.filter((u) => u.status === 'fulfilled')).toHaveLength(1);
    const refused = uploads.find((u) => u.status === 'rejected') as PromiseRejectedResult;
    expect(isServiceError(refused.reason) && refused.reason.status).toBe(409);

    // One rate limit for both: [2, 60] allows two messages in all, wherever they are sent.
    const limited = await a!.client.createChatbot({ name: 'Limited', rate_limit: [2, 60] });
    await a!.client.addQaSource(limited.uuid, {
      question: 'What colour is the sky?',
      answer: 'The sky is blue.',
    });
    const talk = await a!.client.createSession(limited.uuid);
    expect(await answer(a!, talk.uuid, 'What colour is the sky?')).toContain('blue');
    expect(await answer(b!, talk.uuid, 'What colour is the sky?')).toContain('blue');
    const third = await b!.client
      .streamMessage(talk.uuid, { query: 'What colour is the sky?' })
      .then(readPieces)
      .catch((error: unknown) => error);
    expect(isServiceError(third) && third.status).toBe(429);
  }, 60_000);
});

describe('a crash (kill -9) during an ingestion burst', () => {
  let site: Site;
  let releasePages: () => void = () => undefined;
  beforeAll(async () => {
    const pagesReleased = new Promise<void>((resolve) => (releasePages = resolve));
    site = await startSite({
      // Held until released, so the crash finds these fetches in flight.
      '/slow': (_req, res) => {
        void pagesReleased.then(() => {
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<html><body><p>The slow page says the harbour opens at nine.</p></body></html>');
        });
      },
    });
  });
  afterAll(async () => {
    releasePages();
    await site.close();
  });

  it('loses nothing acknowledged, leaves nothing half-written, and fetches again at start', async () => {
    // One process on the file, as after a lone start: the other stops first, as `chatbridge
    // service` does on SIGTERM after serving: cleanly, exit code 0.
    expect(await b!.stop()).toBe(0);
    const first = a!;
    const bot = await first.client.createChatbot({ name: 'Crashy' });
    const pages = await Promise.all(
      [1, 2, 3].map((n) => first.client.addUrlSource(bot.uuid, { url: `${site.url}/slow?${n}` })),
    );
    expect(pages.every((p) => p.status === 'await')).toBe(true);

    // A burst of Q&A pairs; the process is killed once 40 have been acknowledged.
    const acknowledged: DataSource[] = [];
    let crashed!: Promise<void>;
    const crashAt40 = new Promise<void>((resolve) => {
      const burst = Array.from(
        { length: 200 },
        (_, i) =>
          first.client
            .addQaSource(bot.uuid, { question: `Fact ${i}?`, answer: `Fact ${i} is true.` })
            .then((source) => {
              acknowledged.push(source);
              if (acknowledged.length === 40) {
                crashed = first.crash();
                resolve();
              }
            })
            .catch(() => undefined), // refused by the crash: never acknowledged
      );
      void Promise.all(burst);
    });
    await crashAt40;
    await crashed;

    const second = await start(storeUrl);
    const listed = await storedSources(storeUrl, bot.uuid);
    const byUuid = new Map(listed.map((s) => [s.uuid, s]));
    for (const source of acknowledged) expect(byUuid.get(source.uuid)?.status).toBe('success');
    // Every Q&A pair is whole or absent: none waits, none failed half-way.
    expect(listed.filter((s) => s.type === 'qa').every((s) => s.status === 'success')).toBe(true);

    // The fetches the crash interrupted are taken up by the new process at once.
    releasePages();
    const deadline = Date.now() + 15_000;
    let urls = listed.filter((s) => s.type === 'url');
    while (urls.some((s) => s.status === 'await') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50)); // polling another process
      urls = (await storedSources(storeUrl, bot.uuid)).filter((s) => s.type === 'url');
    }
    expect(urls.map((s) => s.status)).toEqual(['success', 'success', 'success']);
    const session = await second.client.createSession(bot.uuid);
    expect(await answer(second, session.uuid, 'When does the harbour open?')).toContain('nine');
  }, 60_000);
});
