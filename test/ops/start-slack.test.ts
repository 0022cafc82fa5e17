// `chatbridge start` with Slack. HTTP mode: /healthz, /readyz and /metrics are served on the
// same PORT as /slack/events (one port to expose), Slack requests are still verified, and a stop
// turns readiness false, then ends an answer still streaming with the restart notice. Socket Mode:
// the same paths on PORT, served by a small server of their own, ready once the socket is up.
import { describe, expect, it } from 'vitest';
import { APP_TOKEN, BOT_TOKEN, FakeSlack, TEAM } from '../slack/fake-slack.js';
import { mention, sign, SIGNING_SECRET } from '../slack/harness.js';
import { scriptedService } from './scripted-service.js';
import { createChatbot, serviceEnv, startBridge, cleanupsAfterEach, closing } from './start-rig.js';

const cleanups = cleanupsAfterEach();

describe('chatbridge start with Slack: health, readiness, metrics, graceful stop', () => {
  it('answers /healthz, /readyz, /metrics beside /slack/events, and stops gracefully', async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    cleanups.push(async () => release());
    const service = closing(cleanups, await scriptedService(hold));
    const chatbot = await createChatbot(service.url, 'Ops');
    const fake = closing(cleanups, await new FakeSlack().start());
    const { port, stop } = await startBridge(
      {
        ...serviceEnv(service.url),
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_SIGNING_SECRET: SIGNING_SECRET,
        SLACK_API_URL: fake.apiUrl,
        CHATBRIDGE_CHATBOT: chatbot,
        CHATBRIDGE_DRAIN_MS: '100',
      },
      cleanups,
    );
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { store: 'ok', service: 'ok', 'platform:slack': 'ok' },
    });
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toContain('# TYPE chatbridge_answers_total counter');
    expect(metrics).toContain('chatbridge_threads_waiting 0');
    // The events endpoint is the receiver's as before: an unsigned request is refused.
    const unsigned = await fetch(`${base}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unsigned.status).toBe(401);

    // A slow answer is streaming when the stop comes.
    const body = JSON.stringify({
      type: 'event_callback',
      team_id: TEAM,
      api_app_id: 'A1',
      event_id: 'EvSlow',
      event_time: Math.floor(Date.now() / 1000),
      event: mention('slow one'),
    });
    const posted = await fetch(`${base}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...sign(body) },
      body,
    });
    expect(posted.status).toBe(200);
    const opened = await fake.waitForCall(
      (call) =>
        ['chat.startStream', 'chat.postMessage'].includes(call.method) && call.reply?.ok === true,
    );
    stop.abort();
    const stopping = await fetch(`${base}/readyz`);
    expect(stopping.status).toBe(503);
    const ts = String((opened.reply as { ts?: string }).ts);
    // The final call keeps the words shown and adds the notice (a context block).
    const final = await fake.waitForCall(
      (call) =>
        ['chat.stopStream', 'chat.update'].includes(call.method) &&
        call.args.ts === ts &&
        JSON.stringify(call.args).includes('the bridge is restarting'),
    );
    expect(final.status).toBe(200);
    expect(fake.workspace.visibleText(ts)).toContain('Working on it');
  });

  it('in Socket Mode serves the three paths on a port of its own, ready once connected', async () => {
    const service = closing(cleanups, await scriptedService(Promise.resolve()));
    const fake = closing(cleanups, await new FakeSlack().start());
    const { port, started } = await startBridge(
      {
        ...serviceEnv(service.url),
        SLACK_BOT_TOKEN: BOT_TOKEN,
        SLACK_APP_TOKEN: APP_TOKEN,
        SLACK_API_URL: fake.apiUrl,
      },
      cleanups,
    );
    const base = `http://127.0.0.1:${port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    await fake.connected();
    // Socket Mode connected (app.start resolved): no guessing how long that takes under load.
    await started;
    const ready = await fetch(`${base}/readyz`);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { store: 'ok', service: 'ok', 'platform:slack': 'ok' },
    });
    expect((await fetch(`${base}/metrics`)).status).toBe(200);
    // Only the ops paths live here: Slack's events come over the socket.
    expect((await fetch(`${base}/slack/events`, { method: 'POST' })).status).toBe(404);
  });
});
