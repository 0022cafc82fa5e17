import { describe, expect, it } from 'vitest';
import { openServiceDb } from '../../src/local-service/db/open.js';
import { SlidingWindowLimiter } from '../../src/local-service/rate-limit.js';
import { Repository } from '../../src/local-service/repository.js';

const BOT = 'bot-rate';

async function limiterAt(clock: { now: number }) {
  const db = openServiceDb('memory://');
  const at = new Date(0).toISOString();
  await new Repository(db).createChatbot({
    owner: 'test',
    uuid: BOT,
    name: 'Rate',
    created_at: at,
    modified_at: at,
    meta: {
      visibility: 'private',
      rate_limit: [1, 10],
      rate_limit_message: 'slow',
      show_citations: true,
    },
  });
  return { db, limiter: new SlidingWindowLimiter(() => clock.now, db) };
}

describe('rate limit', () => {
  it("a slot released after its window has passed never gives back another message's slot", async () => {
    const clock = { now: 0 };
    const { db, limiter } = await limiterAt(clock);
    // A message that takes longer than the window (a slow answer), then fails.
    const slow = await limiter.take(BOT, [1, 10]);
    expect(slow.allowed).toBe(true);
    clock.now = 11_000;
    const next = await limiter.take(BOT, [1, 10]);
    expect(next.allowed).toBe(true);
    limiter.release(BOT, slow.slot);
    // The second message still counts: one message per 10 s.
    clock.now = 12_000;
    expect((await limiter.take(BOT, [1, 10])).allowed).toBe(false);
    db.close();
  });
});
