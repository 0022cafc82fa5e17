// The Slack pacer: a bucket per workspace and method under the tiers, and for chat.postMessage
// one per channel too (about one a second, two at once), in whatever budget it is given.
import { describe, expect, it } from 'vitest';
import { Pacer } from '../../adapters/slack/pacing.js';
import { LocalRateBudget } from '../../src/state/index.js';

describe('Slack pacer', () => {
  it('paces chat.postMessage per channel as well as per workspace', async () => {
    let now = 0;
    const pacer = new Pacer({ budget: new LocalRateBudget(() => now) });
    expect(await pacer.tryTake('T1', 'chat.postMessage', 'C1')).toBe(0);
    expect(await pacer.tryTake('T1', 'chat.postMessage', 'C1')).toBe(0);
    const wait = await pacer.tryTake('T1', 'chat.postMessage', 'C1');
    expect(wait).toBeGreaterThan(1000);
    expect(wait).toBeLessThan(1100);
    // Another channel has its own second; the workspace's tier still has room.
    expect(await pacer.tryTake('T1', 'chat.postMessage', 'C2')).toBe(0);
    now += wait;
    expect(await pacer.tryTake('T1', 'chat.postMessage', 'C1')).toBe(0);
  });

  it('spends one workspace tier across channels: Tier 2 chat.startStream allows 5 at once', async () => {
    const pacer = new Pacer({ budget: new LocalRateBudget(() => 0) });
    const waits = [];
    for (let i = 0; i < 6; i++) waits.push(await pacer.tryTake('T1', 'chat.startStream', `C${i}`));
    expect(waits.slice(0, 5)).toEqual([0, 0, 0, 0, 0]);
    expect(waits[5]).toBeGreaterThan(0);
  });
});
