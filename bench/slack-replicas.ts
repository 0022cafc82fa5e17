// Slack rows of `npm run bench` for two replicas: 1,000 threads at once in ONE workspace,
// answered by two bridges (each its own Bolt server, engine and service client) sharing one
// Redis for state and for the workspace's rate budget, events handed out alternately as a load
// balancer would. The fake enforces Slack's per-method tiers for the workspace as a whole, time
// compressed 30× (the per-minute budgets count over 2 s) so the run stays short.
import { createConversation } from '../src/bridge/index.js';
import { createServiceClient } from '../src/service/index.js';
import { openState, type State } from '../src/state/index.js';
import { METHOD_LIMITS } from '../adapters/slack/pacing.js';
import { FakeSlack, SLACK_TIERS } from '../test/slack/fake-slack.js';
import { Harness, mention } from '../test/slack/harness.js';
import { hasRedisServer, startRedisServer } from '../test/state/redis-server.js';
import {
  answerText,
  answeredWhole,
  piecesOf,
  scriptedService,
  tooManyRequestsRow,
  type Script,
} from './slack-script.js';
import { percentile, type BenchRow } from './table.js';

const WINDOW_MS = 2000;

export async function replicaRows(threads = 1000): Promise<BenchRow[]> {
  const where = `${threads.toLocaleString('en')} concurrent threads, one workspace, two replicas on one Redis, tiers enforced (time ×30)`;
  if (!hasRedisServer) {
    return [{ area: 'slack', metric: where, value: 'skipped: no redis-server', target: '' }];
  }
  const redis = await startRedisServer();
  const { service, scripts } = await scriptedService();
  const fake = await new FakeSlack({
    ...SLACK_TIERS,
    windowMs: WINDOW_MS,
  }).start();
  const setup = await createChatbots(service.url, threads);
  const replicas: { harness: Harness; close(): Promise<void> }[] = [];
  for (let i = 0; i < 2; i++) {
    const state: State = await openState(redis.url, {
      keyPrefix: 'bench-slack',
      maxConcurrent: 2048,
    });
    const client = createServiceClient({ baseUrl: service.url, apiKey: 'bench', connections: 256 });
    const conversation = createConversation({ client, state, maxConcurrentStreams: 512 });
    const harness = await Harness.start({
      conversation,
      client,
      state,
      slack: fake,
      methodLimits: { ...METHOD_LIMITS },
      methodWindowMs: WINDOW_MS,
      rateBudget: state.rateBudget,
    });
    replicas.push({
      harness,
      async close() {
        await harness.adapter.stop();
        await state.close();
        await client.close();
      },
    });
  }
  try {
    const text = answerText(true).slice(0, 400);
    const runs = Array.from({ length: threads }, (_, i) => {
      const query = `replica question ${i}`;
      const script: Script = { pieces: piecesOf(text, 40), intervalMs: 100, timing: {} };
      scripts.set(query, script);
      return { query, script, channel: `CREP${i}` };
    });
    const state = replicas[0]!.harness.state;
    for (const [i, r] of runs.entries()) {
      await state.bindings.set(`slack:T0TEAM:${r.channel}`, setup[i % setup.length]!);
    }
    const started = Date.now();
    await Promise.all(
      runs.map((r, i) => replicas[i % 2]!.harness.event(mention(r.query, { channel: r.channel }))),
    );
    await Promise.all(replicas.map((r) => r.harness.adapter.idle()));
    const elapsed = Date.now() - started;
    const byChannel = new Map<string, typeof fake.calls>();
    for (const call of fake.calls) {
      const channel = String(call.args.channel ?? call.args.channel_id ?? '');
      if (call.reply?.ok && call.method !== 'assistant.threads.setStatus') {
        byChannel.set(channel, [...(byChannel.get(channel) ?? []), call]);
      }
    }
    let complete = 0;
    const finals: number[] = [];
    for (const r of runs) {
      if (answeredWhole(fake, r.channel, text)) complete += 1;
      const last = byChannel.get(r.channel)?.at(-1);
      if (last && r.script.timing.end) finals.push(Math.max(0, last.at - r.script.timing.end));
    }
    const p95 = percentile(finals, 95);
    return [
      tooManyRequestsRow(`${where}: 429s`, fake),
      {
        area: 'slack',
        metric: `${where}: answers complete and whole`,
        value: `${complete}/${threads} in ${(elapsed / 1000).toFixed(1)} s, ${fake.calls.length} calls`,
        target: `${threads}/${threads}`,
        ok: complete === threads,
      },
      {
        area: 'slack',
        metric: `${where}: final text after stream close, p95 (p50), compressed time`,
        value: `${p95} ms (${percentile(finals, 50)} ms)`,
        target: '',
      },
    ];
  } finally {
    for (const replica of replicas) await replica.close();
    await fake.close();
    await service.close();
    await redis.stop();
  }
}

/** Enough chatbots that the service's own per-chatbot rate limit never refuses the load. */
async function createChatbots(url: string, threads: number): Promise<string[]> {
  const client = createServiceClient({ baseUrl: url, apiKey: 'bench' });
  try {
    const count = Math.max(1, Math.ceil(threads / 50));
    const bots = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        client.createChatbot({ name: `Replica bench ${i}`, rate_limit: [100, 1] }),
      ),
    );
    return bots.map((bot) => bot.uuid);
  } finally {
    await client.close();
  }
}
