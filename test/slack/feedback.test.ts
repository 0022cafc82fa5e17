// Feedback on Slack answers, end to end: 👍/👎 (feedback_buttons) under the answer, votes and
// their changes, the reason modal, a second person's vote, the metric, and the admin export
// uploaded to the admin's DM.
import { afterEach, describe, expect, it } from 'vitest';
import { createBridgeMetrics } from '../../src/ops/metrics.js';
import { BOT_TOKEN, TEAM } from './fake-slack.js';
import { startChain, type Chain } from './e2e-setup.js';
import { ALICE, BOSS, mention, viewSubmission } from './harness.js';

let chain: Chain | undefined;
afterEach(async () => {
  await chain?.close();
  chain = undefined;
});

type Block = Record<string, unknown> & { type: string; elements?: Record<string, unknown>[] };

interface Answered {
  ts: string;
  thread: string;
  answerId: string;
  block: Block;
}

/** Asks in a new thread and returns the answer's message and its feedback block. */
async function ask(c: Chain, question: string, answer: string): Promise<Answered> {
  c.scripted.set(question, { pieces: [answer] });
  const event = mention(question);
  await c.harness.event(event);
  const stop = await c.harness.fake.waitFor(
    'chat.stopStream',
    (args) => Array.isArray(args.blocks) && JSON.stringify(args.blocks).includes('feedback'),
  );
  await c.harness.adapter.idle();
  const block = (stop.args.blocks as Block[]).find((b) => b.type === 'context_actions')!;
  const value = String((block.elements![0]!.positive_button as { value: string }).value);
  return { ts: String(stop.args.ts), thread: event.ts, answerId: value.split(':')[1]!, block };
}

function click(answered: Answered, user: string, value: 'positive' | 'negative') {
  return {
    type: 'block_actions',
    team: { id: TEAM },
    user: { id: user, team_id: TEAM },
    api_app_id: 'A1',
    trigger_id: `trigger-${user}-${value}`,
    channel: { id: 'C1' },
    container: { type: 'message', message_ts: answered.ts, channel_id: 'C1' },
    message: { ts: answered.ts, thread_ts: answered.thread },
    actions: [
      {
        type: 'feedback_buttons',
        action_id: 'chatbridge_feedback',
        block_id: answered.block.block_id,
        value: `${value}:${answered.answerId}`,
        action_ts: '1600000000.1',
      },
    ],
  };
}

function reasonSubmission(user: string, privateMetadata: unknown, reason: string) {
  return viewSubmission({
    team: TEAM,
    user: { id: user },
    viewId: 'V9',
    callbackId: 'chatbridge_feedback_reason',
    privateMetadata,
    values: { reason: { reason: { type: 'plain_text_input', value: reason } } },
  });
}

describe('Slack feedback', () => {
  it('puts 👍/👎 under the answer, keeps one vote per person, changes it, and saves a 👎 reason', async () => {
    const metrics = createBridgeMetrics({ processMetrics: false });
    const c = (chain = await startChain({ observer: metrics.observer }));
    const answered = await ask(c, 'how long do refunds take?', 'Refunds take 30 days.');
    expect(answered.block).toMatchObject({
      type: 'context_actions',
      elements: [
        {
          type: 'feedback_buttons',
          action_id: 'chatbridge_feedback',
          positive_button: { text: { type: 'plain_text', text: '👍' } },
          negative_button: { text: { type: 'plain_text', text: '👎' } },
        },
      ],
    });
    const ws = c.harness.fake.workspace;
    expect(ws.visibleText(answered.ts)).toBe('Refunds take 30 days.');

    // Alice: 👍, acknowledged to her alone in the thread.
    expect((await c.harness.interaction(click(answered, ALICE, 'positive'))).status).toBe(200);
    await c.harness.adapter.idle();
    const thanks = c.harness.fake.callsOf('chat.postEphemeral');
    expect(thanks.map((call) => call.args)).toEqual([
      expect.objectContaining({ user: ALICE, channel: 'C1', thread_ts: answered.thread }),
    ]);
    let rows = await c.harness.state.feedback.list();
    expect(rows).toEqual([
      expect.objectContaining({
        vote: 'up',
        userId: ALICE,
        platform: 'slack',
        workspace: TEAM,
        channel: 'C1',
        question: 'how long do refunds take?',
        answerExcerpt: 'Refunds take 30 days.',
        chatbotUuid: c.chatbotUuid,
        messageUuid: answered.answerId,
      }),
    ]);
    const sessionUuid = (await c.harness.state.sessions.get(`slack:${TEAM}:C1:${answered.thread}`))!
      .sessionUuid;
    expect(rows[0]!.sessionUuid).toBe(sessionUuid);
    const id = rows[0]!.id;

    // Alice changes her mind: 👎 replaces the 👍 and opens the reason form.
    await c.harness.interaction(click(answered, ALICE, 'negative'));
    const opened = await c.harness.fake.waitFor('views.open');
    await c.harness.adapter.idle();
    expect(opened.args.trigger_id).toBe(`trigger-${ALICE}-negative`);
    const view = opened.args.view as Record<string, unknown>;
    expect(view.callback_id).toBe('chatbridge_feedback_reason');
    rows = await c.harness.state.feedback.list();
    expect(rows.map((r) => [r.id, r.vote])).toEqual([[id, 'down']]);

    await c.harness.interaction(
      reasonSubmission(ALICE, view.private_metadata, 'It is 14 days, not 30.'),
    );
    await c.harness.adapter.idle();
    expect((await c.harness.state.feedback.get(id))?.reason).toBe('It is 14 days, not 30.');
    // Someone else cannot write a reason onto Alice's row with her form's metadata.
    await c.harness.interaction(reasonSubmission(BOSS, view.private_metadata, 'forged'));
    await c.harness.adapter.idle();
    expect((await c.harness.state.feedback.get(id))?.reason).toBe('It is 14 days, not 30.');

    // A second person's vote is a row of its own; Alice's stays as it is.
    await c.harness.interaction(click(answered, BOSS, 'positive'));
    await c.harness.adapter.idle();
    rows = await c.harness.state.feedback.list();
    expect(rows.map((r) => [r.userId, r.vote]).sort()).toEqual([
      [ALICE, 'down'],
      [BOSS, 'up'],
    ]);
    expect((await c.harness.state.feedback.list({ vote: 'down' })).map((r) => r.userId)).toEqual([
      ALICE,
    ]);
    // Repeating a vote changes nothing and is not counted again.
    await c.harness.interaction(click(answered, BOSS, 'positive'));
    await c.harness.adapter.idle();

    const text = await metrics.render();
    expect(text).toContain('chatbridge_feedback_votes_total{platform="slack",vote="up"} 2');
    expect(text).toContain('chatbridge_feedback_votes_total{platform="slack",vote="down"} 1');
    const stored = JSON.stringify(await c.harness.state.feedback.list());
    expect(stored).not.toContain(BOT_TOKEN);
    expect(stored).not.toContain('xox');
  });

  it('puts the buttons in the final chat.update where Slack refuses streaming', async () => {
    const c = (chain = await startChain({
      fake: { behaviour: { refuseStreaming: 'unknown_method' } },
    }));
    c.scripted.set('edited?', { pieces: ['Edited answer.'] });
    await c.harness.event(mention('edited?'));
    const update = await c.harness.fake.waitFor(
      'chat.update',
      (args) => Array.isArray(args.blocks) && JSON.stringify(args.blocks).includes('feedback'),
    );
    await c.harness.adapter.idle();
    const blocks = update.args.blocks as Block[];
    expect(blocks.map((b) => b.type)).toEqual(['markdown', 'context_actions']);
    expect(c.harness.fake.callsOf('chat.stopStream')).toEqual([]);
  });

  it('uploads `feedback export` to the admin DM as a CSV with every row', async () => {
    const c = (chain = await startChain());
    const answered = await ask(c, '=cmd|calc, "quoted"', 'Line one.\n\nLine two.');
    await c.harness.interaction(click(answered, ALICE, 'negative'));
    const opened = await c.harness.fake.waitFor('views.open');
    await c.harness.interaction(
      reasonSubmission(
        ALICE,
        (opened.args.view as Record<string, unknown>).private_metadata,
        'wrong',
      ),
    );
    await c.harness.adapter.idle();

    expect(await c.harness.command('feedback export --format csv', BOSS)).toBe(200);
    await c.harness.adapter.idle();
    const complete = await c.harness.fake.waitFor('files.completeUploadExternal');
    expect(complete.args.channel_id).toBe(`D${BOSS}`);
    const [file] = complete.args.files as { id: string; title: string }[];
    expect(file!.title).toMatch(/^chatbridge-feedback-\d{8}-\d{4}\.csv$/);
    const csv = c.harness.fake.uploads.get(file!.id)!.toString('utf8');
    const [header, row, end] = csv.split('\r\n');
    expect(header!.split(',').slice(0, 5)).toEqual([
      'id',
      'vote',
      'reason',
      'question',
      'answer_excerpt',
    ]);
    // Formula-safe and quoted (RFC 4180): the question starts with "=" and holds , and ".
    expect(row).toContain(`,down,wrong,"'=cmd|calc, ""quoted""","Line one.\n\nLine two.",`);
    expect(end).toBe('');
    const said = c.harness.fake.responses.at(-1)!.body;
    expect(JSON.stringify(said)).toContain('Exported 1 row');
    expect(JSON.stringify(said)).toContain('in your DM');

    // Someone who is not an admin gets nothing.
    await c.harness.command('feedback export --format jsonl', ALICE);
    await c.harness.adapter.idle();
    expect(c.harness.fake.callsOf('files.completeUploadExternal')).toHaveLength(1);
  });
});
