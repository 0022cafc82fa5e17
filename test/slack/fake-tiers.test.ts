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
  it('refuses a 13th post to one channel within 10 s, and the 301st in a minute in the workspace', async () => {
    let now = 1_000_000;
    fake = await new FakeSlack({ ...SLACK_TIERS, now: () => now }).start();
    const post = (channel: string) => call('chat.postMessage', { channel, text: 'hi' });
    for (let i = 0; i < 12; i++, now += 100) expect((await post('C1')).status).toBe(200);
    // The first of the 12 leaves the 10 s in 8.8 s.
    expect(await post('C1')).toEqual({ status: 429, retryAfter: '9' });
    // Other channels have their own allowance; the workspace counts them all.
    let sent = 12;
    for (let c = 2; sent < 300; c++) {
      for (let i = 0; i < 12 && sent < 300; i++, sent++) {
        expect((await post(`C${c}`)).status).toBe(200);
      }
    }
    const refused = await post('C999');
    expect(refused.status).toBe(429);
    // Until the oldest of the 300 leaves the minute (58.8 s from now).
    expect(refused.retryAfter).toBe('59');
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
