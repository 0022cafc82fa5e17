// The service's own operations surface: /healthz, /readyz and /metrics need no API key; requests
// are counted by route template (never an id), ingestion by type and outcome, extraction
// failures by format; a drain turns readiness false before the service closes.
import { afterEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './helpers.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('local service: health, readiness, metrics', () => {
  it('serves the three endpoints without a key and counts what happened', async () => {
    h = await startHarness();
    const health = await h.raw('GET', '/healthz', undefined, { key: null });
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ status: 'ok' });
    const ready = await h.raw('GET', '/readyz', undefined, { key: null });
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready', checks: { store: 'ok' } });

    const bot = await h.client.createChatbot({ name: 'Metrics' });
    await h.client.addQaSource(bot.uuid, { question: 'Refunds?', answer: 'Five days.' });
    await expect(
      h.client.uploadSource(bot.uuid, {
        file: new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x2d, 0x00]), // "%PDF-" and nothing more
        file_name: 'broken.pdf',
      }),
    ).rejects.toThrow();
    const session = await h.client.createSession(bot.uuid);
    const stream = await h.client.streamMessage(session.uuid, { query: 'Refunds?' });
    for await (const piece of stream) void piece;
    expect((await h.raw('GET', '/api/v1/chatbots', undefined, { key: null })).status).toBe(401);

    const metrics = await h.raw('GET', '/metrics', undefined, { key: null });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain(
      'chatbridge_service_requests_total{route="/api/v1/chatbot/create",method="POST",status="200"} 1',
    );
    expect(metrics.text).toContain(
      'chatbridge_service_requests_total{route="/api/v1/chatbots",method="GET",status="401"} 1',
    );
    expect(metrics.text).toContain('chatbridge_service_answer_seconds_count{status="200"} 1');
    expect(metrics.text).toContain('chatbridge_service_ingestions_total{type="qa",outcome="ok"} 1');
    expect(metrics.text).toContain(
      'chatbridge_service_ingestions_total{type="upload",outcome="failed"} 1',
    );
    expect(metrics.text).toContain('chatbridge_service_extraction_failures_total{format="pdf"} 1');
    // Route templates only: no chatbot, session or source id, no key, no question text.
    expect(metrics.text).not.toContain(bot.uuid);
    expect(metrics.text).not.toContain(session.uuid);
    expect(metrics.text).not.toContain('Refunds');
    expect(metrics.text).not.toContain('key-alpha');

    await h.service.ops.drain(1000);
    const stopping = await h.raw('GET', '/readyz', undefined, { key: null });
    expect(stopping.status).toBe(503);
    expect(stopping.json.checks.shutdown).toBe('shutting down');
  });
});
