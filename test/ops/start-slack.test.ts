// `chatbridge start` with Slack in HTTP mode: /healthz, /readyz and /metrics are served on the
// same PORT as /slack/events (one port to expose), and Slack requests are still verified.
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalService } from '../../src/local-service/index.js';
import { start } from '../../src/start.js';
import { BOT_TOKEN, FakeSlack } from '../slack/fake-slack.js';
import { SIGNING_SECRET } from '../slack/harness.js';

const API_KEY = 'ops-slack-key';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('chatbridge start (Slack HTTP mode): ops endpoints on the Slack port', () => {
  it('answers /healthz, /readyz and /metrics beside /slack/events', async () => {
    const service = await startLocalService({ apiKeys: [API_KEY] });
    cleanups.push(() => service.close());
    const fake = await new FakeSlack().start();
    cleanups.push(() => fake.close());
    const stop = new AbortController();
    const port = await new Promise<number>((resolve, reject) => {
      const running = start({
        env: {
          SLACK_BOT_TOKEN: BOT_TOKEN,
          SLACK_SIGNING_SECRET: SIGNING_SECRET,
          SLACK_API_URL: fake.apiUrl,
          CHATBRIDGE_SERVICE_URL: service.url,
          CHATBRIDGE_API_KEY: API_KEY,
          CHATBRIDGE_STORE: 'memory://',
          PORT: '0',
          LOG_LEVEL: 'silent',
        },
        stdin: process.stdin,
        stdout: process.stdout,
        signal: stop.signal,
        onListening: resolve,
      });
      running.catch(reject);
      cleanups.push(async () => {
        stop.abort();
        await running;
      });
    });
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
  });
});
