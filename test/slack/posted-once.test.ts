// A reply posted once, whole, at its end (a workspace too busy to stream or edit): its first
// words are counted when the post landed in the thread, not when the answer planned it.
import { describe, expect, it } from 'vitest';
import { SurfaceRateLimitError } from '../../src/bridge/types.js';
import { silentLogger } from '../../src/log.js';
import { WorkspaceFeatures } from '../../adapters/slack/features.js';
import { createSlackReplyTarget } from '../../adapters/slack/reply.js';
import type { CallArgs, SlackApi } from '../../adapters/slack/web.js';
import { message, setupEngine } from '../bridge/helpers/engine-setup.js';

/** Streams and edited posts have no room now; the one post at the end waits for `release`. */
function busyApi() {
  const calls: { method: string; args: CallArgs }[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let reached!: () => void;
  const postReached = new Promise<void>((resolve) => (reached = resolve));
  const api: SlackApi = {
    async call(_workspace, method, args, pace = 'wait') {
      const busy = method === 'chat.startStream' || method === 'chat.postMessage';
      if (pace === 'try' && busy) throw new SurfaceRateLimitError(1000);
      if (method === 'chat.postMessage') {
        reached();
        await released;
      }
      calls.push({ method, args });
      return { ok: true, ts: '9.000001' };
    },
    deliver: (workspace, method, args) => api.call(workspace, method, args, 'wait'),
  };
  return { api, calls, postReached, release };
}

describe('Slack reply posted once', () => {
  it('counts first words when the post landed, not when the answer was queued', async () => {
    const firstWords: number[] = [];
    const setup = setupEngine({
      observer: { firstWords: (_platform, ms) => firstWords.push(ms) },
    });
    const { clock, conversation } = setup;
    setup.streamOverTime(() => ['Hello ', 'there.'], 100);
    const { api, calls, postReached, release } = busyApi();
    const target = createSlackReplyTarget(
      {
        workspace: 'T1',
        channel: 'C1',
        threadTs: 'th1',
        messageTs: 'th1',
        userId: 'U1',
        userTeam: 'T1',
        isDm: false,
      },
      { api, features: new WorkspaceFeatures(), logger: silentLogger, now: clock.now },
    );
    const done = conversation.handle(message('hi'), target);
    // The whole answer is in; its one post is on its way (Slack slow to take it).
    await clock.runUntil(postReached);
    expect(firstWords).toEqual([]);
    await clock.advance(4_000);
    const landedAt = clock.now();
    release();
    await clock.runUntil(done);
    expect(calls.filter((c) => c.method === 'chat.postMessage')).toHaveLength(1);
    // Measured from the message reaching the engine (time 0) to the post landing.
    expect(firstWords).toEqual([landedAt]);
    expect(landedAt).toBeGreaterThanOrEqual(4_000);
  });
});
