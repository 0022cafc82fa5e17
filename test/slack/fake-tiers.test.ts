// The fake Slack enforces Slack's documented tiers (SLACK_TIERS, from adapters/slack/limits.ts)
// per workspace and per channel, and answers 429 with a Retry-After, as Slack does: what the
// load test and benchmark rely on to count 429s.
import { afterEach, describe, expect, it } from 'vitest';
import { BOT_TOKEN, FakeSlack, SLACK_TIERS } from './fake-slack.js';

let fake: FakeSlack | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function call(method: string, args: Record<string, unknown>) {
  const response = await fetch(`${fake!.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BOT_TOKEN}` },
    body: JSON.stringify(args),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after') };
}

describe('fake Slack tiers', () => {
  it('refuses a fourth post to one channel within a second, and the 301st in a minute in the workspace', async () => {
    const now = 1_000_000;
    fake = await new FakeSlack({ ...SLACK_TIERS, now: () => now }).start();
    const post = (channel: string) => call('chat.postMessage', { channel, text: 'hi' });
    expect([
      (await post('C1')).status,
      (await post('C1')).status,
      (await post('C1')).status,
    ]).toEqual([200, 200, 200]);
    expect(await post('C1')).toEqual({ status: 429, retryAfter: '1' });
    // Other channels have their own second; the workspace counts them all.
    let sent = 3;
    for (let c = 2; sent < 300; c++) {
      for (let i = 0; i < 3 && sent < 300; i++, sent++)
        expect((await post(`C${c}`)).status).toBe(200);
    }
    const refused = await post('C999');
    expect(refused.status).toBe(429);
    // Until the oldest of the 300 leaves the minute.
    expect(refused.retryAfter).toBe('60');
    expect(fake.tooManyRequests).toBe(2);
  });

  it('counts a Tier 2 method per workspace: the 21st chat.startStream in a minute is refused', async () => {
    let now = 1_000_000;
    fake = await new FakeSlack({ ...SLACK_TIERS, now: () => now }).start();
    const start = (i: number) =>
      call('chat.startStream', {
        channel: `C${i}`,
        thread_ts: '1.000001',
        markdown_text: 'x',
        recipient_user_id: 'U1',
        recipient_team_id: 'T1',
      });
    for (let i = 0; i < 20; i++, now += 1000) expect((await start(i)).status).toBe(200);
    const refused = await start(20);
    expect(refused.status).toBe(429);
    // The first of the 20 went out 20 s ago: it leaves the minute in 40 s.
    expect(refused.retryAfter).toBe('40');
    now += 40_000;
    expect((await start(21)).status).toBe(200);
  });
});
