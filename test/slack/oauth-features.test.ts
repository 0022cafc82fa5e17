// OAuth installs meeting the other Slack features: in a workspace installed through OAuth, the
// 👍/👎 under an answer, the 👎 reason form, `feedback export` (upload flow into the admin's DM)
// and the assistant pane's calls all go out with THAT workspace's token, while another
// workspace is installed beside it. The real engine answers from the local service.
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { createConversation } from '../../src/bridge/index.js';
import { startLocalService, type LocalService } from '../../src/local-service/index.js';
import { createDefaultKnowledge } from '../../src/local-service/knowledge-default.js';
import { fromArray } from '../../src/local-service/pieces.js';
import { createServiceClient } from '../../src/service/index.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { Logger } from '../../src/log.js';
import { openState } from '../../src/state/index.js';
import { CLIENT_SECRET } from './fake-oauth.js';
import type { FakeCall } from './fake-slack.js';
import { ALICE, BOSS, Harness, nextTs, traceLogger, viewSubmission } from './harness.js';
import {
  STATE_SECRET,
  eventIn,
  installThroughOAuth,
  mentionOf,
  oauthConfig,
} from './oauth-flow.js';

interface Rig {
  h: Harness;
  service: LocalService;
  client: ServiceClient;
  a: { code: string; token: string; botUserId: string };
  b: { code: string; token: string; botUserId: string };
  chatbots: { workspace: string; sales: string };
}

let rig: Rig | undefined;
afterEach(async () => {
  if (!rig) return;
  await rig.h.close();
  await rig.client.close();
  await rig.service.close();
  rig = undefined;
});

async function begin(logger?: Logger, key = randomBytes(32)): Promise<Rig> {
  const base = await createDefaultKnowledge({
    refusePrivateUrls: false,
    maxFetchBytes: 1024 * 1024,
    fetchTimeoutMs: 5000,
  });
  const service = await startLocalService({
    apiKeys: ['test-key'],
    knowledge: {
      ...base,
      answer: (request) => ({
        pieces: fromArray([`Answer to ${request.query}`]),
        citations: () => ({}),
      }),
    },
  });
  const client = createServiceClient({ baseUrl: service.url, apiKey: 'test-key' });
  const state = await openState('memory://');
  const workspaceBot = await client.createChatbot({ name: 'Support', rate_limit: [100, 60] });
  const salesBot = await client.createChatbot({ name: 'Sales', rate_limit: [100, 60] });
  await state.bindings.set('slack:TB', workspaceBot.uuid);
  await state.bindings.set('slack:TB:CB2', salesBot.uuid);
  const h = await Harness.start({
    conversation: createConversation({ client, state }),
    client,
    state,
    oauth: oauthConfig(key),
    ...(logger ? { logger } : {}),
  });
  const fake = h.fake;
  for (const channel of ['CA1', 'CB1', 'CB2']) fake.workspace.channels.set(channel, 'support');
  const a = fake.oauth.installable('TA', { channels: ['CA1'] });
  // DB5: the pane's DM in TB; DBOSS: the admin's DM there (conversations.open gives D<user>).
  const b = fake.oauth.installable('TB', { channels: ['CB1', 'CB2', 'DB5', `D${BOSS}`] });
  fake.workspace.users.set(ALICE, { id: ALICE, name: 'alice', team_id: 'TB' });
  fake.workspace.users.set(BOSS, { id: BOSS, name: 'boss', team_id: 'TB', is_admin: true });
  await installThroughOAuth(h, a.code);
  await installThroughOAuth(h, b.code);
  rig = {
    h,
    service,
    client,
    a,
    b,
    chatbots: { workspace: workspaceBot.uuid, sales: salesBot.uuid },
  };
  return rig;
}

/** Every call the adapter made since `from` that did not carry `token`. */
function withOtherTokens(calls: FakeCall[], token: string): string[] {
  return calls
    .filter((call) => call.authorization !== `Bearer ${token}`)
    .map((call) => `${call.method} ${call.authorization ?? 'no token'}`);
}

/** A click on a 👍/👎 (`value`) under the answer `ts` in TB; resolves once the adapter is idle. */
async function vote(r: Rig, channel: string, ts: string, thread: string, value: string) {
  const clicked = await r.h.interaction({
    type: 'block_actions',
    team: { id: 'TB' },
    user: { id: ALICE, team_id: 'TB' },
    api_app_id: 'A1',
    trigger_id: `trigger-${nextTs()}`,
    channel: { id: channel },
    container: { type: 'message', message_ts: ts, channel_id: channel },
    message: { ts, thread_ts: thread },
    actions: [{ type: 'feedback_buttons', action_id: 'chatbridge_feedback', value }],
  });
  await r.h.adapter.idle();
  return clicked;
}

type Block = { type: string; elements?: { positive_button?: { value: string } }[] };

/** Once the adapter is idle: the answer's ts and the 👍 value its feedback block carried. */
async function feedbackValueIn(r: Rig, channel: string): Promise<{ ts: string; value: string }> {
  await r.h.adapter.idle();
  const final = await r.h.fake.waitForCall(
    (call) =>
      (call.method === 'chat.stopStream' || call.method === 'chat.update') &&
      call.args.channel === channel &&
      JSON.stringify(call.args.blocks ?? '').includes('feedback_buttons'),
  );
  const block = (final.args.blocks as Block[]).find((each) => each.type === 'context_actions')!;
  return { ts: String(final.args.ts), value: block.elements![0]!.positive_button!.value };
}

/** Alice asks TB's bot in CB1, then votes on the answer; returns her question and the answer. */
async function askAndVote(r: Rig, choice: 'up' | 'down') {
  const asked = mentionOf(r.b.botUserId, 'CB1');
  await eventIn(r.h, 'TB', asked);
  const { ts, value } = await feedbackValueIn(r, 'CB1');
  const clicked = choice === 'up' ? value : value.replace('positive', 'negative');
  await vote(r, 'CB1', ts, asked.ts, clicked);
  return { asked, ts, value };
}

describe('Slack OAuth installs with feedback and the assistant pane', () => {
  it("votes, the 👎 form and the reason's thanks use the voting workspace's token", async () => {
    const r = await begin();
    const fake = r.h.fake;
    const asked = mentionOf(r.b.botUserId, 'CB1');
    expect(await eventIn(r.h, 'TB', asked)).toBe(200);
    const { ts, value } = await feedbackValueIn(r, 'CB1');
    const from = fake.calls.length;
    const down = value.replace(/^positive:/, 'negative:');
    expect((await vote(r, 'CB1', ts, asked.ts, down)).status).toBe(200);
    const opened = fake.callsOf('views.open').at(-1)!;
    expect(opened.reply).toMatchObject({ ok: true });
    const rows = await r.h.state.feedback.list();
    expect(rows).toEqual([
      expect.objectContaining({ workspace: 'TB', vote: 'down', chatbotUuid: r.chatbots.workspace }),
    ]);
    const submitted = await r.h.interaction(
      viewSubmission({
        team: 'TB',
        user: { id: ALICE, team_id: 'TB' },
        viewId: 'V9',
        callbackId: 'chatbridge_feedback_reason',
        privateMetadata: (opened.args.view as { private_metadata: string }).private_metadata,
        values: { reason: { reason: { type: 'plain_text_input', value: 'too vague' } } },
      }),
    );
    expect(submitted.status).toBe(200);
    await r.h.adapter.idle();
    expect((await r.h.state.feedback.list())[0]?.reason).toBe('too vague');
    const calls = fake.calls.slice(from);
    expect(calls.map((call) => call.method)).toEqual([
      'views.open',
      'chat.postEphemeral',
      'chat.postEphemeral',
    ]);
    expect(withOtherTokens(calls, r.b.token)).toEqual([]);
    expect(calls.filter((call) => call.reply?.ok !== true)).toEqual([]);
  });

  it("`feedback export` reaches the admin's DM through the workspace's own token", async () => {
    const r = await begin();
    const fake = r.h.fake;
    await askAndVote(r, 'up');
    const from = fake.calls.length;
    expect(await r.h.command('feedback export --format csv', BOSS, 'CB1', 'TB')).toBe(200);
    await r.h.adapter.idle();
    const calls = fake.calls.slice(from).filter((call) => call.method !== 'response_url');
    expect(calls.map((call) => call.method)).toEqual([
      'users.info',
      'conversations.open',
      'files.getUploadURLExternal',
      'files.completeUploadExternal',
    ]);
    expect(withOtherTokens(calls, r.b.token)).toEqual([]);
    const csv = new TextDecoder().decode([...fake.uploads.values()][0]);
    expect(csv).toContain('how do refunds work?');
    const answered = fake.responses.at(-1)!.body;
    expect(JSON.stringify(answered)).toContain('is in your DM with the app');
  });

  it("the pane greets, titles, shows status and takes votes with the workspace's token", async () => {
    const r = await begin();
    const fake = r.h.fake;
    const dm = 'DB5';
    const thread = fake.workspace.userMessage({ channel: dm, user: ALICE, text: '' }).ts;
    const from = fake.calls.length;
    const started = {
      type: 'assistant_thread_started',
      assistant_thread: {
        user_id: ALICE,
        context: { channel_id: 'CB2', team_id: 'TB' },
        channel_id: dm,
        thread_ts: thread,
      },
      event_ts: nextTs(),
    };
    expect(await eventIn(r.h, 'TB', started)).toBe(200);
    await r.h.adapter.idle();
    const { ts } = fake.workspace.userMessage({
      channel: dm,
      user: ALICE,
      text: 'what do we sell?',
      threadTs: thread,
    });
    const question = {
      type: 'message',
      channel_type: 'im',
      user: ALICE,
      text: 'what do we sell?',
      ts,
      thread_ts: thread,
      channel: dm,
    };
    expect(await eventIn(r.h, 'TB', question)).toBe(200);
    const answer = await feedbackValueIn(r, dm);
    expect(await vote(r, dm, answer.ts, thread, answer.value)).toMatchObject({ status: 200 });

    const calls = fake.calls.slice(from);
    const methods = new Set(calls.map((call) => call.method));
    for (const method of [
      'chat.postMessage',
      'assistant.threads.setSuggestedPrompts',
      'assistant.threads.setTitle',
      'assistant.threads.setStatus',
      'chat.startStream',
      'chat.stopStream',
      'chat.postEphemeral',
    ]) {
      expect(methods, method).toContain(method);
    }
    expect(withOtherTokens(calls, r.b.token)).toEqual([]);
    expect(calls.filter((call) => call.reply?.ok !== true)).toEqual([]);
    // The vote names the chatbot of the channel viewed, not the workspace's.
    expect(await r.h.state.feedback.list()).toEqual([
      expect.objectContaining({ workspace: 'TB', vote: 'up', chatbotUuid: r.chatbots.sales }),
    ]);
  });

  it('logs no token, client secret, state secret or secret key, even at trace level', async () => {
    const { logger, text: logged } = traceLogger();
    const key = randomBytes(32);
    const r = await begin(logger, key);
    await askAndVote(r, 'down');
    const rows = await r.h.state.feedback.list();
    expect(rows).toHaveLength(1);
    const text = logged();
    expect(text).toContain('slack: app installed');
    for (const secret of [
      r.a.token,
      r.b.token,
      CLIENT_SECRET,
      STATE_SECRET,
      key.toString('base64'),
      key.toString('hex'),
    ]) {
      expect(text).not.toContain(secret);
      expect(JSON.stringify(rows)).not.toContain(secret);
    }
    expect(text).not.toMatch(/xoxb-/);
  });

  it('after app_uninstalled, a click on an old answer there calls nothing and keeps the votes', async () => {
    const r = await begin();
    const fake = r.h.fake;
    const { asked, ts, value } = await askAndVote(r, 'up');
    expect(await eventIn(r.h, 'TB', { type: 'app_uninstalled' })).toBe(200);
    fake.oauth.revoke(r.b.token);
    const from = fake.calls.length;
    const down = value.replace('positive', 'negative');
    const late = await vote(r, 'CB1', ts, asked.ts, down);
    expect(late.status).toBe(200);
    expect(fake.calls.slice(from)).toEqual([]);
    expect(await r.h.state.feedback.list()).toEqual([expect.objectContaining({ vote: 'up' })]);
  });
});
