// stop(): new events are refused (Slack delivers them again), answers in progress finish
// (up to the drain limit), then the app stops. start() fails, naming the address, when Slack
// never answers auth.test.
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackAdapter } from '../../adapters/slack/index.js';
import type { ServiceClient } from '../../src/service/api.js';
import { openState } from '../../src/state/index.js';
import { useFakeTime } from '../fake-time.js';
import { BOT_TOKEN, FakeSlack } from './fake-slack.js';
import { Harness, mention, SIGNING_SECRET } from './harness.js';
import { RecordingConversation, simpleAnswer, type Script } from './recording.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.fake.close();
  await h?.state.close();
  h = undefined;
});

/** A script that shows its first words, then waits for the test before finishing. */
function gated() {
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const script: Script = async (target) => {
    const message = await target.openMessage('Working ');
    await gate;
    await message.finish({ text: 'Working on it: done.', sources: [] });
  };
  return { script, open };
}

describe('Slack adapter stop()', () => {
  it('refuses new events, lets the answer in progress finish, then stops', async () => {
    const { script, open } = gated();
    const conversation = new RecordingConversation(script);
    h = await Harness.start({ conversation });
    const url = h.url;
    await h.event(mention('long question'));
    await h.fake.waitFor('chat.startStream');
    let stopped = false;
    const stopping = h.adapter.stop().then(() => (stopped = true));
    const late = await h.event(mention('arrived while stopping'));
    expect(late.status).toBe(500);
    expect(stopped).toBe(false);
    open();
    await stopping;
    const stop = h.fake.callsOf('chat.stopStream')[0];
    expect(h.fake.workspace.visibleText(String(stop?.args.ts))).toBe('Working on it: done.');
    expect(conversation.handled.map((e) => e.message.text)).toEqual(['long question']);
    await expect(fetch(url, { method: 'POST' })).rejects.toThrow();
    await h.adapter.stop(); // a second stop is harmless
  });

  it('stops after the drain limit even when an answer never ends', async () => {
    const { script, open } = gated();
    h = await Harness.start({ conversation: new RecordingConversation(script), drainMs: 50 });
    await h.event(mention('stuck'));
    await h.fake.waitFor('chat.startStream');
    await h.adapter.stop();
    await expect(fetch(h.url, { method: 'POST' })).rejects.toThrow();
    open();
    await h.adapter.idle();
  });

  it('still answers normally before stop()', async () => {
    const conversation = new RecordingConversation(simpleAnswer('Fine.'));
    h = await Harness.start({ conversation });
    expect((await h.event(mention('hi'))).status).toBe(200);
    await h.adapter.stop();
    expect(conversation.handled).toHaveLength(1);
    expect(h.fake.callsOf('chat.stopStream')).toHaveLength(1);
  });
});

describe('Slack adapter start()', () => {
  it('fails, naming the address, when Slack never answers auth.test', async () => {
    const fake = await new FakeSlack().start();
    // Every auth.test is held (Bolt's own at creation, then the adapter's).
    const silent = [fake.hold('auth.test'), fake.hold('auth.test')];
    const state = await openState('memory://');
    const adapter = createSlackAdapter(
      {
        botToken: BOT_TOKEN,
        signingSecret: SIGNING_SECRET,
        port: 0,
        host: '127.0.0.1',
        apiUrl: fake.apiUrl,
        admins: [],
        maxUploadBytes: 1024,
      },
      {
        conversation: new RecordingConversation(),
        state,
        client: {} as ServiceClient,
        authTimeoutMs: 200,
      },
    );
    // On fake time, moved on only while loopback I/O is at rest: the 200 ms are virtual.
    const time = useFakeTime(50, { ioTurns: true });
    try {
      await expect(time.settle(adapter.start())).rejects.toThrow(
        `slack: auth.test got no answer from ${fake.apiUrl} within 0.2 s`,
      );
      await silent[1]!.reached;
      expect(time.elapsed()).toBeGreaterThanOrEqual(200);
    } finally {
      time.restore();
      for (const hold of silent) hold.release();
      await state.close();
      await fake.close();
    }
  });
});
