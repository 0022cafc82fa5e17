// discord.js requests paced by the rate budget: an edit with no token left in its channel is
// refused at once (a RateLimitError, as discord.js refuses edits), a post waits for its token,
// and every request spends from the bot's global bucket.
import { RateLimitError } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { GLOBAL_BUCKET, pacedRequests } from '../../adapters/discord/budget.js';
import { LocalRateBudget } from '../../src/state/index.js';

const ok = { status: 200, ok: true } as unknown as Awaited<
  ReturnType<ReturnType<typeof pacedRequests>>
>;
const api = 'http://discord.test/api/v10';

describe('discord requests paced by the rate budget', () => {
  it('refuses a second edit in one channel at once, but lets another channel edit', async () => {
    const sent: string[] = [];
    const budget = new LocalRateBudget();
    const request = pacedRequests(budget, 'bot', async (url, init) => {
      sent.push(`${init.method} ${new URL(url).pathname}`);
      return ok;
    });
    await request(`${api}/channels/1/messages/10`, { method: 'PATCH' });
    const refused = await request(`${api}/channels/1/messages/10`, { method: 'PATCH' }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).retryAfter).toBeGreaterThan(1000);
    await request(`${api}/channels/2/messages/20`, { method: 'PATCH' });
    expect(sent).toEqual([
      'PATCH /api/v10/channels/1/messages/10',
      'PATCH /api/v10/channels/2/messages/20',
    ]);
  });

  it('spends every request from the global bucket of the bot', async () => {
    const budget = new LocalRateBudget(() => 0); // a clock that stands still: no refill
    const request = pacedRequests(budget, 'bot', async () => ok);
    for (let i = 0; i < GLOBAL_BUCKET.capacity; i++) {
      await request(`${api}/channels/${i}/messages/1/threads`, { method: 'POST' });
    }
    expect(await budget.take('discord:bot:global', GLOBAL_BUCKET)).toBeGreaterThan(0);
  });
});
