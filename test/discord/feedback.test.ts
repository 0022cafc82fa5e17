// Feedback on Discord answers, end to end: 👍/👎 buttons on the answer's last message, votes and
// their changes, the reason modal, a second person's vote, the metric, and `feedback export`
// attached to the admin's ephemeral answer.
import { afterEach, describe, expect, it } from 'vitest';
import { createBridgeMetrics } from '../../src/ops/metrics.js';
import { startEngineRig, type EngineRig } from './engine-rig.js';
import { TOKEN } from './fake/discord.js';
import {
  MANAGE_GUILD,
  clickButton,
  dispatchInteraction,
  submitModal,
  type InteractionRecord,
} from './fake/interactions.js';
import { user, type FakeMessage } from './fake/payloads.js';
import { alice } from './helpers.js';

const bob = user('100000000000000002', 'bob');

let rig: EngineRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

interface Row {
  type: number;
  components: { type: number; custom_id: string; style: number; emoji?: { name?: string } }[];
}

const buttonsOf = (m: FakeMessage) => (m.components ?? []) as Row[];

/** Asks in a new thread; resolves with the answer's message once its buttons are on. */
async function ask(r: EngineRig, question: string): Promise<FakeMessage> {
  const { fake } = r;
  const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> ${question}`, {
    mentions: [fake.bot],
  });
  const done = (m: FakeMessage) => m.channel_id === asked.id && buttonsOf(m).length > 0;
  return fake.waitFor<FakeMessage>('edit', done, fake.botMessages(asked.id).filter(done));
}

/** Resolves once the interaction got its (first) callback. */
function answered(r: EngineRig, record: InteractionRecord): Promise<InteractionRecord> {
  return r.fake.waitFor<InteractionRecord>(
    'interaction',
    (each) =>
      each === record &&
      (each.callbacks[0]?.type === 4 ||
        each.callbacks[0]?.type === 9 ||
        (each.messages[0]?.history.length ?? 0) > 0),
    record.callbacks.length > 0 ? [record] : [],
  );
}

describe('Discord feedback', () => {
  it('puts 👍/👎 buttons on the answer, keeps one vote per person, changes it, and saves a 👎 reason', async () => {
    const metrics = createBridgeMetrics({ processMetrics: false });
    rig = await startEngineRig({ observer: metrics.observer });
    rig.answers.push({ pieces: ['Refunds take ', '30 days.'] });
    const { fake, state } = rig;
    const answer = await ask(rig, 'how long do refunds take?');
    expect(answer.content).toBe('Refunds take 30 days.');
    const [row] = buttonsOf(answer);
    expect(row!.type).toBe(1);
    const [up, down] = row!.components;
    expect(up).toMatchObject({ type: 2, emoji: { name: '👍' } });
    expect(down).toMatchObject({ type: 2, emoji: { name: '👎' } });
    expect(up!.custom_id).toMatch(/^cbfb:up:[\w-]+$/);
    expect(up!.custom_id.length).toBeLessThanOrEqual(100);
    const answerId = up!.custom_id.split(':')[2]!;
    const where = { channelId: answer.channel_id, message: answer };

    // Alice: 👍, told only her.
    const liked = clickButton(fake, { ...where, user: alice, customId: up!.custom_id });
    await answered(rig, liked);
    expect(liked.callbacks[0]).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(liked.callbacks[0]!.data!.content).toContain('👍');
    let rows = await state.feedback.list();
    expect(rows).toEqual([
      expect.objectContaining({
        vote: 'up',
        userId: alice.id,
        platform: 'discord',
        workspace: fake.guildId,
        question: 'how long do refunds take?',
        answerExcerpt: 'Refunds take 30 days.',
        chatbotUuid: rig.chatbotUuid,
        messageUuid: answerId,
      }),
    ]);
    const id = rows[0]!.id;

    // She changes her mind: 👎 replaces the 👍 and the reason form opens.
    const disliked = clickButton(fake, { ...where, user: alice, customId: down!.custom_id });
    await answered(rig, disliked);
    const modal = disliked.callbacks[0] as unknown as {
      type: number;
      data: { custom_id: string; components: { components: Record<string, unknown>[] }[] };
    };
    expect(modal.type).toBe(9);
    expect(modal.data.custom_id).toBe(`cbfb:reason:${id}`);
    expect(modal.data.components[0]!.components[0]).toMatchObject({
      type: 4,
      custom_id: 'reason',
      required: false,
      max_length: 500,
    });
    rows = await state.feedback.list();
    expect(rows.map((r) => [r.id, r.vote])).toEqual([[id, 'down']]);

    // The reason form, filled in by `who`.
    const reason = (who: typeof alice, text: string) =>
      submitModal(fake, {
        user: who,
        channelId: answer.channel_id,
        customId: modal.data.custom_id,
        values: { reason: text },
      });
    const reasoned = reason(alice, 'It is 14 days.');
    await answered(rig, reasoned);
    expect(reasoned.callbacks[0]).toMatchObject({ type: 4, data: { flags: 64 } });
    expect((await state.feedback.get(id))?.reason).toBe('It is 14 days.');
    // Bob cannot put words on Alice's row.
    const forged = reason(bob, 'forged');
    await answered(rig, forged);
    expect((await state.feedback.get(id))?.reason).toBe('It is 14 days.');

    // Bob's own 👍 is a row of its own.
    await answered(rig, clickButton(fake, { ...where, user: bob, customId: up!.custom_id }));
    rows = await state.feedback.list();
    expect(rows.map((r) => [r.userId, r.vote]).sort()).toEqual([
      [alice.id, 'down'],
      [bob.id, 'up'],
    ]);

    const text = await metrics.render();
    expect(text).toContain('chatbridge_feedback_votes_total{platform="discord",vote="up"} 2');
    expect(text).toContain('chatbridge_feedback_votes_total{platform="discord",vote="down"} 1');
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
  });

  it('lists votes and attaches `feedback export` as JSON Lines to the admin answer', async () => {
    rig = await startEngineRig();
    rig.answers.push({ pieces: ['Paris.'] });
    const { fake } = rig;
    const answer = await ask(rig, 'capital of France?');
    const [up, down] = buttonsOf(answer)[0]!.components;
    const where = { channelId: answer.channel_id, message: answer };
    await answered(rig, clickButton(fake, { ...where, user: alice, customId: down!.custom_id }));
    await answered(rig, clickButton(fake, { ...where, user: bob, customId: up!.custom_id }));

    const admin = { user: alice, permissions: MANAGE_GUILD, channelId: fake.textChannel.id };
    const listed = dispatchInteraction(fake, {
      ...admin,
      group: 'feedback',
      sub: 'list',
      options: [{ name: 'negative', type: 5, value: true }],
    });
    await answered(rig, listed);
    const shown = listed.messages[0]!.content;
    expect(shown).toContain('capital of France?');
    expect(shown).toContain('1 vote: 0 👍, 1 👎');

    const exported = dispatchInteraction(fake, {
      ...admin,
      group: 'feedback',
      sub: 'export',
      options: [{ name: 'format', type: 3, value: 'jsonl' }],
    });
    await answered(rig, exported);
    expect(exported.files).toHaveLength(1);
    const [file] = exported.files;
    expect(file!.name).toMatch(/^chatbridge-feedback-\d{8}-\d{4}\.jsonl$/);
    const lines = file!.bytes.toString('utf8').trimEnd().split('\n');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, string>);
    expect(parsed.map((r) => [r.user_id, r.vote]).sort()).toEqual([
      [alice.id, 'down'],
      [bob.id, 'up'],
    ]);
    expect(parsed[0]).toMatchObject({
      question: 'capital of France?',
      answer_excerpt: 'Paris.',
      platform: 'discord',
      chatbot_uuid: rig.chatbotUuid,
    });
    expect(exported.messages[0]!.content).toContain('Exported 2 rows');
  });
});
