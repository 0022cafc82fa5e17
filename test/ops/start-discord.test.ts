// `chatbridge start` with Discord only, as a team runs it: GET /healthz, /readyz and /metrics on
// PORT, and SIGTERM (here: the abort signal) turning readiness false first, then ending an
// answer still streaming with a notice within the drain time.
import { describe, expect, it } from 'vitest';
import { FakeDiscord, TOKEN } from '../discord/fake/discord.js';
import { user } from '../discord/fake/payloads.js';
import type { FakeMessage } from '../discord/fake/payloads.js';
import { scriptedService } from './scripted-service.js';
import {
  createChatbot,
  get,
  serviceEnv,
  startBridge,
  cleanupsAfterEach,
  closing,
} from './start-rig.js';

const alice = user('100000000000000001', 'alice');

const cleanups = cleanupsAfterEach();

describe('chatbridge start (Discord only): health, readiness, metrics, graceful stop', () => {
  it('serves the three endpoints on PORT and ends a streaming answer with a notice on stop', async () => {
    let release!: () => void;
    const hold = new Promise<void>((resolve) => (release = resolve));
    cleanups.push(async () => release());
    const service = closing(cleanups, await scriptedService(hold));
    const chatbot = await createChatbot(service.url, 'Ops');
    const fake = closing(cleanups, await new FakeDiscord().start());

    const { port, started, stop } = await startBridge(
      {
        ...serviceEnv(service.url),
        DISCORD_TOKEN: TOKEN,
        DISCORD_API_URL: fake.apiUrl,
        CHATBRIDGE_CHATBOT: chatbot,
        CHATBRIDGE_DRAIN_MS: '100',
      },
      cleanups,
    );
    // Discord connects after the port opens: the gateway's identify tells us it is on its way.
    const health = await get(port, '/healthz');
    expect(health).toMatchObject({ status: 200 });
    expect(JSON.parse(health.text)).toEqual({ status: 'ok' });
    await fake.waitFor('identify', () => true);
    // Connected: no more guessing how long that takes under load.
    await started;
    const ready = await get(port, '/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({
      status: 'ready',
      checks: {
        store: 'ok',
        service: 'ok',
        'platform:discord': 'ok',
        // One connection unless DISCORD_SHARDS says otherwise (test/discord/shards-start.test.ts).
        'platform:discord:shard 0/1': 'ok',
      },
    });

    // One whole answer, then the metrics show it, by platform and outcome only.
    // The answer's message in the thread opened on the question, once it shows `text`.
    const finalOf = (asked: FakeMessage, text: string) =>
      new Promise<FakeMessage>((resolve) => {
        const check = () => {
          const found = fake.botMessages(asked.id).find((m) => m.content.includes(text));
          if (!found) return;
          fake.off('message', check);
          fake.off('edit', check);
          resolve(found);
        };
        fake.on('message', check);
        fake.on('edit', check);
        check();
      });
    const first = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> refunds?`, {
      mentions: [fake.bot],
    });
    await finalOf(first, 'Refunds take five days.');
    // The count follows the final edit's HTTP answer, just after the fake saw it: scrape until it
    // shows (bounded by the test's timeout, not by a guess at how slow a loaded machine is).
    let scraped: Awaited<ReturnType<typeof get>> | undefined;
    for (;;) {
      scraped = await get(port, '/metrics');
      if (
        scraped.text.includes('chatbridge_answers_total{platform="discord",outcome="answered"} 1')
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(scraped!.type).toContain('text/plain');
    const metrics = scraped!.text;
    expect(metrics).toContain('chatbridge_answers_total{platform="discord",outcome="answered"} 1');
    expect(metrics).toContain('chatbridge_first_words_seconds_count{platform="discord"} 1');
    expect(metrics).toMatch(
      /chatbridge_service_calls_total\{endpoint="streamMessage",code="ok"\} 1/,
    );
    expect(metrics).toMatch(
      /chatbridge_platform_api_calls_total\{platform="discord",method="POST \/channels\/:id\/messages",outcome="ok"\} \d+/,
    );
    expect(metrics).toContain(
      'chatbridge_platform_connection_ready{platform="discord",connection="shard 0/1"} 1',
    );
    expect(metrics).toContain('process_cpu_seconds_total');
    // No user text, user ids or channel ids in any label.
    expect(metrics).not.toContain('refunds');
    expect(metrics).not.toContain(alice.id);
    expect(metrics).not.toContain(fake.textChannel.id);

    // A slow answer is streaming when the stop comes.
    const slow = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> slow one`, {
      mentions: [fake.bot],
    });
    await fake.waitFor<FakeMessage>(
      'message',
      (m) => m.channel_id === slow.id && m.author.id === fake.bot.id,
      fake.botMessages(slow.id),
    );
    stop.abort();
    const stopping = await get(port, '/readyz');
    expect(stopping.status).toBe(503);
    expect(JSON.parse(stopping.text).checks.shutdown).toBe('shutting down');
    const notice = await finalOf(slow, 'the bridge is restarting');
    expect(notice.content).toContain('Working on it');
  });
});
