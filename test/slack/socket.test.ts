// Socket Mode over a local WebSocket: apps.connections.open on the configured API host, an
// events_api envelope acknowledged, then answered like any event. An envelope is acknowledged
// only once its event is kept: while the store is down it is not, Slack delivers it again, and
// the redelivery after the store is back is answered exactly once.
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../../src/log.js';
import { openState } from '../../src/state/index.js';
import type { StateStore } from '../../src/state/types.js';
import type { ServiceClient } from '../../src/service/api.js';
import { createSlackAdapter, type SlackAdapter } from '../../adapters/slack/index.js';
import { withFailingIntake } from './failing-intake.js';
import { APP_TOKEN, BOT_TOKEN, FakeSlack, TEAM } from './fake-slack.js';
import { mention } from './harness.js';
import { RecordingConversation } from './recording.js';

/** A logger, and a way to await the line it writes that contains some text. */
function watchedLogger(): { logger: Logger; line: (text: string) => Promise<string> } {
  const lines: string[] = [];
  const waiters: { text: string; resolve: (line: string) => void }[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const line = chunk.toString('utf8');
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (!line.includes(waiter.text)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
      done();
    },
  });
  return {
    logger: createLogger({ level: 'warn', destination }),
    line: (text) =>
      new Promise((resolve) => {
        const seen = lines.find((line) => line.includes(text));
        if (seen) resolve(seen);
        else waiters.push({ text, resolve });
      }),
  };
}

/**
 * A fake Slack and a Socket Mode adapter on it, not yet started; the test's cleanup stops both
 * and closes `closing` (the store the test opened).
 */
async function socketAdapter(
  state: StateStore,
  conversation: RecordingConversation,
  { logger, closing = state }: { logger?: Logger; closing?: StateStore } = {},
): Promise<{ fake: FakeSlack; adapter: SlackAdapter }> {
  const fake = await new FakeSlack().start();
  const adapter = createSlackAdapter(
    {
      botToken: BOT_TOKEN,
      appToken: APP_TOKEN,
      port: 0,
      apiUrl: fake.apiUrl,
      admins: [],
      maxUploadBytes: 1024,
    },
    { conversation, state, client: {} as ServiceClient, ...(logger ? { logger } : {}) },
  );
  cleanup = async () => {
    await adapter.idle();
    await adapter.stop();
    await fake.close();
    await closing.close();
  };
  return { fake, adapter };
}

/**
 * Resolves once every ack the app sent so far has reached the fake: an envelope that is acked
 * at once (another bot's message, none to answer) goes last, and one socket keeps order.
 */
async function acksArrived(fake: FakeSlack): Promise<void> {
  const probe = fake.socketMode.deliver({
    type: 'event_callback',
    team_id: TEAM,
    event_id: `EvProbe${fake.socketMode.sent.length}`,
    event: { type: 'message', subtype: 'bot_message', bot_id: 'BOTHER', text: 'beep', ts: '1.1' },
  });
  await probe.acked;
}

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('Slack in Socket Mode', () => {
  it('connects through the configured API URL, acks an envelope and answers it', async () => {
    const conversation = new RecordingConversation();
    const { fake, adapter } = await socketAdapter(await openState('memory://'), conversation);
    expect(adapter.notReady?.()).toBe('not started yet');
    await adapter.start();
    await fake.connected();
    // GET /readyz follows the socket: connected now.
    expect(adapter.notReady?.()).toBeUndefined();
    const open = fake.callsOf('apps.connections.open')[0]!;
    expect(open.authorization).toBe(`Bearer ${APP_TOKEN}`);
    const event = mention('over the socket');
    const ack = await fake.sendEnvelope('env-1', {
      type: 'event_callback',
      team_id: TEAM,
      event_id: 'EvSock1',
      event,
    });
    expect(ack).toMatchObject({ envelope_id: 'env-1' });
    const stop = await fake.waitFor('chat.stopStream');
    expect(conversation.handled[0]?.message.text).toBe('over the socket');
    expect(fake.workspace.visibleText(String(stop.args.ts))).toBe('Hello there.');
  });

  it('does not acknowledge an event it cannot keep; the redelivery is answered once', async () => {
    const inner = await openState('memory://');
    const control = { down: true };
    const conversation = new RecordingConversation();
    const { logger, line } = watchedLogger();
    const { fake, adapter } = await socketAdapter(withFailingIntake(inner, control), conversation, {
      logger,
      closing: inner,
    });
    await adapter.start();
    await fake.connected();
    const socket = fake.socketMode;
    const payload = { type: 'event_callback', team_id: TEAM, event_id: 'EvDown1' };
    const first = socket.deliver({ ...payload, event: mention('while the store is down') });
    // The listener could not keep it: the receiver says so, and sends no ack.
    await line('envelope not kept, not acknowledged');
    await acksArrived(fake);
    expect(socket.isAcked(first.envelopeId)).toBe(false);
    expect(conversation.handled).toHaveLength(0);

    // Slack's first retry comes while the store is still down: not acknowledged either.
    const second = socket.redeliver(first);
    await line('"retryNum":1');
    await acksArrived(fake);
    expect(socket.isAcked(second.envelopeId)).toBe(false);

    control.down = false;
    const third = socket.redeliver(second);
    expect(await third.acked).toMatchObject({ envelope_id: third.envelopeId });
    expect(
      socket.sent.filter((s) => s.payload.event_id === 'EvDown1').map((s) => s.retryAttempt),
    ).toEqual([0, 1, 2]);
    const stop = await fake.waitFor('chat.stopStream');
    expect(fake.workspace.visibleText(String(stop.args.ts))).toBe('Hello there.');
    // A copy of the same event still on its way (another connection, a late retry): acked,
    // never answered twice.
    const late = socket.deliver({ ...payload, event: socket.sent[0]!.payload.event });
    await late.acked;
    await adapter.idle();
    expect(conversation.handled.map((e) => e.message.text)).toEqual(['while the store is down']);
    expect(fake.callsOf('chat.startStream')).toHaveLength(1);
    expect(inner.intake!.queue('slack').held).toBe(0);
  });

  it('acknowledges a slash command as its listener says', async () => {
    const { fake, adapter } = await socketAdapter(
      await openState('memory://'),
      new RecordingConversation(),
    );
    await adapter.start();
    await fake.connected();
    // A slash command: its listener acknowledges it at once, nothing waits for a keep.
    const closed = fake.socketMode.deliver({
      command: '/chatbridge',
      text: 'help',
      team_id: TEAM,
      user_id: 'UALICE',
      channel_id: 'C1',
      response_url: `${fake.origin}/response/1`,
      trigger_id: 'trigger-1',
    });
    expect(await closed.acked).toMatchObject({ envelope_id: closed.envelopeId });
  });
});
