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

describe('Slack pacer: shares and per-channel methods', () => {
  it('keeps chat.update final texts a share that live edits cannot spend', async () => {
    const pacer = new Pacer({ budget: new LocalRateBudget(() => 0) });
    // Live edits: 15 of the 50 a minute, 3 at once; then they wait.
    const live = [];
    for (let i = 0; i < 4; i++) live.push(await pacer.tryTake('T1', 'chat.update', 'C1', 'live'));
    expect(live.slice(0, 3)).toEqual([0, 0, 0]);
    expect(live[3]).toBeGreaterThan(0);
    // Final texts still have their own 35 a minute, 8 at once.
    for (let i = 0; i < 8; i++) expect(await pacer.tryTake('T1', 'chat.update', `C${i}`)).toBe(0);
    expect(await pacer.tryTake('T1', 'chat.update', 'C9')).toBeGreaterThan(0);
  });

  it('paces the thread status per conversation, about one a second, with no workspace cap', async () => {
    let now = 0;
    const pacer = new Pacer({ budget: new LocalRateBudget(() => now) });
    const method = 'assistant.threads.setStatus';
    for (let c = 0; c < 50; c++) {
      expect(await pacer.tryTake('T1', method, `C${c}`)).toBe(0);
      expect(await pacer.tryTake('T1', method, `C${c}`)).toBe(0);
    }
    const wait = await pacer.tryTake('T1', method, 'C0');
    expect(wait).toBeGreaterThan(1000);
    now += wait;
    expect(await pacer.tryTake('T1', method, 'C0')).toBe(0);
  });
});
