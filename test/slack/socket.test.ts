// Socket Mode over a local WebSocket: apps.connections.open on the configured API host, an
// events_api envelope acknowledged, then answered like any event.
import { afterEach, describe, expect, it } from 'vitest';
import { openState } from '../../src/state/index.js';
import type { ServiceClient } from '../../src/service/api.js';
import { createSlackAdapter, type SlackAdapter } from '../../adapters/slack/index.js';
import { APP_TOKEN, BOT_TOKEN, FakeSlack, TEAM } from './fake-slack.js';
import { mention } from './harness.js';
import { RecordingConversation } from './recording.js';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

describe('Slack in Socket Mode', () => {
  it('connects through the configured API URL, acks an envelope and answers it', async () => {
    const fake = await new FakeSlack().start();
    const state = await openState('memory://');
    const conversation = new RecordingConversation();
    const adapter: SlackAdapter = createSlackAdapter(
      {
        botToken: BOT_TOKEN,
        appToken: APP_TOKEN,
        port: 0,
        apiUrl: fake.apiUrl,
        admins: [],
        maxUploadBytes: 1024,
      },
      { conversation, state, client: {} as ServiceClient },
    );
    cleanup = async () => {
      await adapter.idle();
      await adapter.stop();
      await fake.close();
      await state.close();
    };
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
});
