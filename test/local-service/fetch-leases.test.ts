// Fetch leases (sources.ts): who may take up a URL source that waits for its fetch.
import { describe, expect, it } from 'vitest';
import { openServiceDb, type ServiceDb } from '../../src/local-service/db/open.js';
import { Repository } from '../../src/local-service/repository.js';

const BOT = 'bot-leases';
const at = new Date(0).toISOString();

async function storeWithWaitingUrl(db: ServiceDb): Promise<Repository> {
  const repo = new Repository(db);
  await repo.createChatbot({
    owner: 'test',
    uuid: BOT,
    name: 'Leases',
    created_at: at,
    modified_at: at,
    meta: {
      visibility: 'private',
      rate_limit: [20, 240],
      rate_limit_message: 'slow',
      show_citations: true,
    },
  });
  repo.sources.createPending({
    owner: 'test',
    chatbotUuid: BOT,
    uuid: 'page',
    title: 'https://example.com/',
    type: 'url',
    status: 'await',
    file_name: 'https://example.com/',
    file_size: 0,
    tokens: 0,
    meta_json: '{}',
    url: 'https://example.com/',
    created_at: at,
    modified_at: at,
  });
  return repo;
}

describe('fetch leases', () => {
  it('takes up at once a lease left by an earlier process that had this pid (a container restarted)', async () => {
    const db = openServiceDb('memory://');
    const repo = await storeWithWaitingUrl(db);
    // A crash left the lease running for 30 s more; its process had the pid this one has now.
    db.prepare('UPDATE sources SET fetch_lease_until = ?, fetch_owner = ? WHERE uuid = ?').run(
      30_000,
      `${process.pid}:crashed1`,
      'page',
    );
    expect(repo.sources.unfinished(0)).toEqual(['page']);
    expect(repo.sources.claimFetch('page', 0, 30_000)).toBe(true);
    db.close();
  });

  it('leaves a fetch to another service instance of this process while it holds the lease', async () => {
    const db = openServiceDb('memory://');
    const repo = await storeWithWaitingUrl(db);
    const other = new Repository(db); // a second service on the same file, in this process
    expect(repo.sources.claimFetch('page', 0, 30_000)).toBe(true);
    expect(other.sources.unfinished(1_000)).toEqual([]);
    expect(other.sources.claimFetch('page', 1_000, 30_000)).toBe(false);
    // Its own lease is renewed.
    expect(repo.sources.claimFetch('page', 1_000, 30_000)).toBe(true);
    db.close();
  });

  it('gives back only its own lease: one taken over after it ran out stays with the new holder', async () => {
    const db = openServiceDb('memory://');
    const slow = await storeWithWaitingUrl(db);
    const other = new Repository(db);
    expect(slow.sources.claimFetch('page', 0, 30_000)).toBe(true);
    // The slow holder's lease ran out; another instance takes the fetch over.
    expect(other.sources.claimFetch('page', 31_000, 30_000)).toBe(true);
    slow.sources.releaseFetch('page'); // the slow one stops, giving back what it thinks it holds
    const third = new Repository(db);
    expect(third.sources.claimFetch('page', 32_000, 30_000)).toBe(false);
    expect(other.sources.claimFetch('page', 32_000, 30_000)).toBe(true);
    db.close();
  });
});
