// Slack row of `npm run bench` for many workspaces: two workspaces installed through the OAuth
// routes (/slack/install, /slack/oauth_redirect, oauth.v2.access on the fake), then 200 threads
// at once spread over them. The fake enforces Slack's per-method tiers per workspace, time
// compressed 30× (the per-minute budgets count over 2 s), and refuses a call whose token belongs
// to the other workspace, so every answer must go out with its own workspace's token.
import { createConversation } from '../src/bridge/index.js';
import { createServiceClient } from '../src/service/index.js';
import { openState } from '../src/state/index.js';
import { METHOD_LIMITS } from '../adapters/slack/pacing.js';
import { FakeSlack, SLACK_TIERS } from '../test/slack/fake-slack.js';
import { ALICE, Harness, nextTs } from '../test/slack/harness.js';
import { eventIn, installThroughOAuth, oauthConfig } from '../test/slack/oauth-flow.js';
import {
  answerText,
  answeredWhole,
  piecesOf,
  scriptedService,
  tooManyRequestsRow,
} from './slack-script.js';
import type { BenchRow } from './table.js';

const WINDOW_MS = 2000;
const TEAMS = ['TOAUTHA', 'TOAUTHB'];

export async function oauthRows(threads = 200): Promise<BenchRow[]> {
  const where = `${threads} concurrent threads over two OAuth-installed workspaces, tiers enforced per workspace (time ×30)`;
  const { service, scripts } = await scriptedService();
  const client = createServiceClient({ baseUrl: service.url, apiKey: 'bench', connections: 256 });
  const fake = await new FakeSlack({
    ...SLACK_TIERS,
    windowMs: WINDOW_MS,
  }).start();
  const state = await openState('memory://', { maxConcurrent: 512 });
  const conversation = createConversation({ client, state, maxConcurrentStreams: 512 });
  const harness = await Harness.start({
    conversation,
    client,
    state,
    slack: fake,
    oauth: oauthConfig(),
    methodLimits: { ...METHOD_LIMITS },
    methodWindowMs: WINDOW_MS,
  });
  try {
    const chatbots = await Promise.all(
      [1, 2, 3, 4].map((i) => client.createChatbot({ name: `OAuth ${i}`, rate_limit: [100, 1] })),
    );
    const text = answerText(true).slice(0, 400);
    const runs = Array.from({ length: threads }, (_, i) => {
      const team = TEAMS[i % TEAMS.length]!;
      const query = `oauth question ${i}`;
      scripts.set(query, { pieces: piecesOf(text, 40), intervalMs: 100, timing: {} });
      return { query, team, channel: `C${team}${i}` };
    });
    const installs = new Map<string, { token: string; botUserId: string }>();
    for (const team of TEAMS) {
      const channels = runs.filter((r) => r.team === team).map((r) => r.channel);
      for (const channel of channels) fake.workspace.channels.set(channel, 'support');
      const install = fake.oauth.installable(team, { channels });
      const outcome = await installThroughOAuth(harness, install.code);
      if (outcome.status !== 200) throw new Error(`installing ${team}: HTTP ${outcome.status}`);
      installs.set(team, install);
    }
    for (const [i, r] of runs.entries()) {
      await state.bindings.set(`slack:${r.team}:${r.channel}`, chatbots[i % 4]!.uuid);
    }
    const started = Date.now();
    await Promise.all(
      runs.map((r) =>
        eventIn(harness, r.team, {
          type: 'app_mention',
          user: ALICE,
          text: `<@${installs.get(r.team)!.botUserId}> ${r.query}`,
          ts: nextTs(),
          channel: r.channel,
        }),
      ),
    );
    await harness.adapter.idle();
    const elapsed = Date.now() - started;
    const complete = runs.filter((r) => answeredWhole(fake, r.channel, text)).length;
    // Every call into a thread's channel carried the token of that thread's workspace.
    const teamOf = new Map(runs.map((r) => [r.channel, r.team]));
    const threadCalls = fake.calls.filter((c) => teamOf.has(String(c.args.channel)));
    const wrongToken = threadCalls.filter(
      (c) =>
        c.authorization !== `Bearer ${installs.get(teamOf.get(String(c.args.channel))!)!.token}`,
    ).length;
    const perTeam = TEAMS.map((t) => threadCalls.filter((c) => c.team === t).length).join(' + ');
    return [
      tooManyRequestsRow(`${where}: 429s`, fake),
      {
        area: 'slack',
        metric: `${where}: answers whole, with their workspace's token`,
        value: `${complete}/${threads} whole in ${(elapsed / 1000).toFixed(1)} s; ${wrongToken} of ${threadCalls.length} calls (${perTeam}) with another token`,
        target: `${threads}/${threads}, 0`,
        ok: complete === threads && wrongToken === 0,
      },
    ];
  } finally {
    await harness.close();
    await client.close();
    await service.close();
  }
}
