// Answers end to end: fake Discord ↔ real discord.js ↔ adapter ↔ real engine ↔ service client
// ↔ local service with scripted answers.
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from './fake/payloads.js';
import { tooManyRequests } from './fake/discord.js';
import { gate, startEngineRig, type EngineRig } from './engine-rig.js';
import { alice } from './helpers.js';

let rig: EngineRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const cite = (title: string, link: string) => ({
  data_source_uuid: 'a'.repeat(32),
  title,
  text: 'the cited passage',
  file_name: 'guide.md',
  type: 'upload',
  link,
});

function expectNoMentions(messages: FakeMessage[]): void {
  expect(messages.length).toBeGreaterThan(0);
  for (const message of messages) {
    expect(message.allowedMentions.length).toBe(message.history.length);
    for (const allowed of message.allowedMentions)
      expect((allowed as { parse: unknown }).parse).toEqual([]);
  }
}

/** Resolves when the bot's last message in the channel has this final text (created or edited). */
function finalText(
  rig: EngineRig,
  channelId: string,
  predicate: (content: string) => boolean,
): Promise<FakeMessage> {
  const matches = (m: FakeMessage) => m.channel_id === channelId && predicate(m.content);
  const past = rig.fake.botMessages(channelId).filter(matches);
  return Promise.race([
    rig.fake.waitFor<FakeMessage>('edit', matches, past),
    rig.fake.waitFor<FakeMessage>('message', matches, past),
  ]);
}

describe('discord answers through the engine', () => {
  it('mention → thread → first words while streaming → final cited answer, mentions off', async () => {
    rig = await startEngineRig();
    const { fake } = rig;
    const release = gate();
    rig.pacer = (index) => (index === 1 ? release.wait() : Promise.resolve());
    rig.answers.push({
      pieces: [
        'Open Settings, ',
        'then choose Security [1.1]. ',
        'Ping @everyone or <@123> if stuck.',
      ],
      cite: { '1.1': cite('Password *guide*', 'https://docs.example.com/reset') },
    });
    const asked = fake.userMessage(
      fake.textChannel.id,
      alice,
      `<@${fake.bot.id}> How do I reset my password?`,
      {
        mentions: [fake.bot],
      },
    );
    // The first words are on screen while the service still holds the rest.
    const first = await fake.waitFor<FakeMessage>('message', (m) => m.channel_id === asked.id);
    expect(first.content).toBe('Open Settings, ');
    expect(fake.channels.get(asked.id)?.name).toBe('How do I reset my password?');
    release.open();
    const done = await finalText(rig, asked.id, (c) => c.includes('**Sources**'));
    expect(done.id).toBe(first.id);
    expect(done.content).toBe(
      'Open Settings, then choose Security [1]. Ping @everyone or <@123> if stuck.\n\n' +
        '**Sources**\n[1] Password \\*guide\\* <https://docs.example.com/reset>',
    );
    expectNoMentions(fake.botMessages());
  });

  it('follow-up in the thread continues the same session without a mention', async () => {
    rig = await startEngineRig();
    const { fake, state } = rig;
    rig.answers.push({ pieces: ['First answer.'] }, { pieces: ['Second answer.'] });
    const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> one`, {
      mentions: [fake.bot],
    });
    await finalText(rig, asked.id, (c) => c === 'First answer.');
    const key = `discord:${fake.guildId}:${fake.textChannel.id}:${asked.id}`;
    const session = await state.sessions.get(key);
    expect(session).toBeDefined();
    fake.userMessage(asked.id, alice, 'two, no mention');
    await finalText(rig, asked.id, (c) => c === 'Second answer.');
    expect((await state.sessions.get(key))?.sessionUuid).toBe(session?.sessionUuid);
    const messages = await rig.client.listMessages(session!.sessionUuid);
    expect(messages.map((m) => m.query)).toEqual(['one', 'two, no mention']);
  });

  it('a forum post bound to a chatbot and a DM are answered in place', async () => {
    rig = await startEngineRig();
    const { fake, state } = rig;
    rig.answers.push({ pieces: ['Forum answer.'] }, { pieces: ['DM answer.'] });
    await state.bindings.set(`discord:${fake.guildId}:${fake.forum.id}`, rig.chatbotUuid);
    const post = fake.forumPost(alice, 'Billing', 'Charged twice?');
    await finalText(rig, post.id, (c) => c === 'Forum answer.');
    const dm = fake.dmChannel(alice);
    fake.userMessage(dm.id, alice, 'hi in private');
    await finalText(rig, dm.id, (c) => c === 'DM answer.');
    expectNoMentions(fake.botMessages());
  });

  it('a 6,000-character answer arrives whole in messages under 2,000 at Discord’s pace while edits get 429', async () => {
    // Fake time: Discord's own edit pace (one edit a second) and retry_after as Discord gives it.
    rig = await startEngineRig({ fakeTime: true });
    const { fake } = rig;
    const sentences = Array.from(
      { length: 140 },
      (_, i) => `Sentence number ${i + 1} of the long answer is here.`,
    );
    const paragraphs: string[] = [];
    for (let i = 0; i < sentences.length; i += 6)
      paragraphs.push(sentences.slice(i, i + 6).join(' '));
    const answer = paragraphs.join('\n\n');
    expect(answer.length).toBeGreaterThan(6000);
    // Released in 80-character pieces, every tenth after a virtual second (a model writing).
    const pieces = answer.match(/[\s\S]{1,80}/g)!;
    const writing = (index: number) =>
      index % 10 === 0 ? new Promise<void>((resolve) => setTimeout(resolve, 1000)) : undefined;
    rig.answers.push({ pieces, before: writing });
    const RETRY_AFTER_MS = 1500;
    const patches: { at: number; path: string; refused: boolean }[] = [];
    fake.rateLimiter = (request) => {
      if (request.method !== 'PATCH') return undefined;
      const refused = (patches.length + 1) % 3 === 0;
      patches.push({ at: Date.now(), path: request.path, refused });
      return refused ? RETRY_AFTER_MS : undefined;
    };
    const asked = fake.userMessage(
      fake.textChannel.id,
      alice,
      `<@${fake.bot.id}> tell me everything`,
      {
        mentions: [fake.bot],
      },
    );
    const thread = asked.id;
    await rig.settle(
      finalText(rig, thread, (c) => c.includes('Sentence number 140 of the long answer is here.')),
    );
    await rig.settle(rig.adapter.stop()); // drains: every message has reached its final state
    const messages = fake.botMessages(thread);
    expect(messages.length).toBeGreaterThanOrEqual(4);
    for (const message of messages) {
      for (const content of message.history) expect(content.length).toBeLessThanOrEqual(2000);
    }
    const words = (text: string) => text.split(/\s+/).filter((w) => w !== '' && w !== '…');
    expect(words(messages.map((m) => m.content).join('\n'))).toEqual(words(answer));
    expect(patches.filter((p) => p.refused).length).toBeGreaterThan(0);
    // The schedule: after a 429, the channel's next edit waits out retry_after.
    for (const [i, patch] of patches.entries()) {
      const next = patches[i + 1];
      if (patch.refused && next) expect(next.at - patch.at).toBeGreaterThanOrEqual(RETRY_AFTER_MS);
    }
    expectNoMentions(messages);
  });

  it('a service failure mid-stream ends in a visible notice, partial text kept', async () => {
    rig = await startEngineRig();
    const { fake, service } = rig;
    rig.answers.push({
      pieces: ['The first part arrived. ', 'The second part, maybe. ', 'Never seen.'],
    });
    service.setFaults({ cutAfterPieces: 2 });
    // The connection breaks only once the first words are on screen.
    const shown = gate();
    rig.pacer = (index) => (index === 1 ? shown.wait() : Promise.resolve());
    const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> break please`, {
      mentions: [fake.bot],
    });
    await fake.waitFor<FakeMessage>('message', (m) => m.channel_id === asked.id);
    shown.open();
    const final = await finalText(rig, asked.id, (c) => c.includes('\u26a0\ufe0f'));
    expect(final.content).toMatch(/^The first part arrived\.[^\n]*\n\n> \u26a0\ufe0f \S/);
    expect(final.content).not.toContain('Never seen');
    expectNoMentions(fake.botMessages());
  });

  it('a 429 on the final edit is retried after each retry_after until it lands', async () => {
    rig = await startEngineRig({ fakeTime: true });
    const { fake } = rig;
    const release = gate();
    rig.pacer = (index) => (index === 1 ? release.wait() : Promise.resolve());
    rig.answers.push({ pieces: ['Partial ', 'and final.'] });
    const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> q`, {
      mentions: [fake.bot],
    });
    await rig.settle(fake.waitFor<FakeMessage>('message', (m) => m.channel_id === asked.id));
    // Discord's retry_after for an edit bucket, in seconds of fake time.
    const RETRY_AFTER_MS = 2500;
    const tries: { at: number; refused: boolean }[] = [];
    fake.rateLimiter = (request) => {
      if (request.method !== 'PATCH') return undefined;
      const refused = tries.length < 3;
      tries.push({ at: Date.now(), refused });
      return refused ? RETRY_AFTER_MS : undefined;
    };
    release.open();
    const final = await rig.settle(finalText(rig, asked.id, (c) => c === 'Partial and final.'));
    expect(tries.map((t) => t.refused)).toEqual([true, true, true, false]);
    // The schedule: each try waits out the retry_after of the 429 before it.
    for (const [i, t] of tries.slice(1).entries()) {
      expect(t.at - tries[i]!.at).toBeGreaterThanOrEqual(RETRY_AFTER_MS);
    }
    expect(final.history.at(-1)).toBe('Partial and final.');
    expect(tooManyRequests({ method: 'PATCH', path: '' }, 25).status).toBe(429);
  });
});
