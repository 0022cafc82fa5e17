// stop(): new events are refused (Slack delivers them again), answers in progress finish
// (up to the drain limit), then the app stops.
import { afterEach, describe, expect, it } from 'vitest';
import { Harness, mention } from './harness.js';
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
