// The metric feeds outside the engine: service calls counted by endpoint and code (a stream when
// it ends), de-duplication hits by platform; labels never carry ids or text.
import { describe, expect, it } from 'vitest';
import { createBridgeMetrics } from '../../src/ops/metrics.js';
import { observeServiceClient } from '../../src/ops/observed-client.js';
import { observeDedup } from '../../src/ops/observed-state.js';
import { openState } from '../../src/state/index.js';
import { FakeClient, ScriptedStream } from '../bridge/helpers/fake-client.js';

describe('metric feeds', () => {
  it('counts service calls by endpoint and code, a stream once it ends', async () => {
    const metrics = createBridgeMetrics({ processMetrics: false });
    const fake = new FakeClient();
    const client = observeServiceClient(fake, metrics.service);
    const bots = await client.listChatbots();
    const session = await client.createSession(bots[0]!.uuid);
    await expect(client.createSession('no-such-bot')).rejects.toThrow();
    const stream = new ScriptedStream();
    fake.onStream = () => stream;
    const answer = await client.streamMessage(session.uuid, { query: 'what is the plan?' });
    stream.push('The plan');
    stream.fail('timeout');
    await expect(
      (async () => {
        for await (const piece of answer) void piece;
      })(),
    ).rejects.toThrow();
    const text = await metrics.render();
    expect(text).toContain('chatbridge_service_calls_total{endpoint="listChatbots",code="ok"} 1');
    expect(text).toContain('chatbridge_service_calls_total{endpoint="createSession",code="ok"} 1');
    expect(text).toContain(
      'chatbridge_service_errors_total{endpoint="createSession",code="not_found"} 1',
    );
    expect(text).toContain(
      'chatbridge_service_errors_total{endpoint="streamMessage",code="timeout"} 1',
    );
    expect(text).not.toContain('plan');
    expect(text).not.toContain(session.uuid);
  });

  it('counts a duplicate event by the platform its key starts with', async () => {
    const metrics = createBridgeMetrics({ processMetrics: false });
    const state = observeDedup(await openState('memory://'), metrics.observer);
    expect(await state.dedup.claim('slack:event:Ev1', 60_000)).toBe(true);
    expect(await state.dedup.claim('slack:event:Ev1', 60_000)).toBe(false);
    expect(await state.dedup.claim('discord:message:123', 60_000)).toBe(true);
    const text = await metrics.render();
    expect(text).toContain('chatbridge_dedup_hits_total{platform="slack"} 1');
    expect(text).not.toContain('platform="discord"');
    expect(text).not.toContain('Ev1');
    await state.close();
  });

  it('counts a redelivery the intake queue refuses, by its platform', async () => {
    const metrics = createBridgeMetrics({ processMetrics: false });
    const state = observeDedup(await openState('memory://'), metrics.observer);
    const queue = state.intake!.queue('slack');
    expect(await queue.keep('slack:message:T1:C1:1.1', '{}')).toBeDefined();
    expect(await queue.keep('slack:message:T1:C1:1.1', '{}')).toBeUndefined();
    expect(await metrics.render()).toContain('chatbridge_dedup_hits_total{platform="slack"} 1');
    await state.close();
  });

  it('does not count claims that only make something happen once (an assistant thread title)', async () => {
    const metrics = createBridgeMetrics({ processMetrics: false });
    const state = observeDedup(await openState('memory://'), metrics.observer);
    // Every question after the first in an assistant pane thread loses the title claim.
    const title = 'slack:assistant-title:slack:T1:D5:1600000000.000001';
    expect(await state.dedup.claim(title, 60_000)).toBe(true);
    expect(await state.dedup.claim(title, 60_000)).toBe(false);
    expect(await state.dedup.claim(title, 60_000)).toBe(false);
    // An interaction two processes holding one shard both received is a delivery twice.
    expect(await state.dedup.claim('discord:interaction:99', 60_000)).toBe(true);
    expect(await state.dedup.claim('discord:interaction:99', 60_000)).toBe(false);
    const text = await metrics.render();
    expect(text).not.toContain('chatbridge_dedup_hits_total{platform="slack"}');
    expect(text).toContain('chatbridge_dedup_hits_total{platform="discord"} 1');
    await state.close();
  });
});
