// The working indicator under load: with no status token free it puts the hourglass on if one
// is free, else waits for a status token; and once the answer has ended nothing more goes on.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SurfaceRateLimitError } from '../../src/bridge/types.js';
import { silentLogger } from '../../src/log.js';
import { WorkspaceFeatures } from '../../adapters/slack/features.js';
import type { CallArgs, SlackApi } from '../../adapters/slack/web.js';
import { WorkingIndicator } from '../../adapters/slack/working.js';

afterEach(() => void vi.useRealTimers());

/** An API whose methods are free or rate limited (for `waitMs`) as the test says. */
function scriptedApi(free: Record<string, boolean>, waitMs = 1000) {
  const calls: { method: string; args: CallArgs }[] = [];
  const api: SlackApi = {
    async call(_workspace, method, args, pace = 'wait') {
      if (pace === 'try' && !free[method]) throw new SurfaceRateLimitError(waitMs);
      calls.push({ method, args });
      return { ok: true };
    },
    deliver: (workspace, method, args) => api.call(workspace, method, args, 'wait'),
  };
  return { api, calls };
}

const place = {
  workspace: 'T1',
  channel: 'C1',
  threadTs: '1.000001',
  messageTs: '1.000001',
  kind: 'channel',
};

describe('Slack working indicator under load', () => {
  it('puts the hourglass on when no status token is free, and takes it off at the end', async () => {
    const { api, calls } = scriptedApi({ 'reactions.add': true, 'reactions.remove': true });
    const working = new WorkingIndicator(api, new WorkspaceFeatures(), place, silentLogger);
    await working.show();
    expect(calls.map((c) => c.method)).toEqual(['reactions.add']);
    await working.stop();
    expect(calls.map((c) => c.method)).toEqual(['reactions.add', 'reactions.remove']);
  });

  it('waits for a status token when neither is free, and shows the status when one frees', async () => {
    vi.useFakeTimers();
    const free: Record<string, boolean> = {};
    const { api, calls } = scriptedApi(free);
    const working = new WorkingIndicator(api, new WorkspaceFeatures(), place, silentLogger);
    const showing = working.show();
    await vi.advanceTimersByTimeAsync(500);
    expect(calls).toEqual([]);
    free['assistant.threads.setStatus'] = true;
    await vi.advanceTimersByTimeAsync(600);
    await showing;
    expect(calls.map((c) => [c.method, c.args.status])).toEqual([
      ['assistant.threads.setStatus', 'is thinking…'],
    ]);
    // A reply posted whole waits on it: shown already, so no wait.
    await working.shown(10_000);
    await working.stop();
    expect(calls.map((c) => c.args.status)).toEqual(['is thinking…', '']);
  });

  it('never shows a status after the answer ended, and clears nothing it never showed', async () => {
    vi.useFakeTimers();
    const free: Record<string, boolean> = {};
    const { api, calls } = scriptedApi(free);
    const working = new WorkingIndicator(api, new WorkspaceFeatures(), place, silentLogger);
    void working.show();
    await vi.advanceTimersByTimeAsync(300);
    await working.stop();
    free['assistant.threads.setStatus'] = true;
    await vi.advanceTimersByTimeAsync(5000);
    expect(calls).toEqual([]);
  });
});
