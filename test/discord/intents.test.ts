// The privileged Message Content intent: asked for by default, dropped with one warning when
// Discord refuses it (close 4014, at start or later), never asked for with `off`, required with
// `on`. Without it the bot answers mentions and DMs, and stays silent on text it cannot read.
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayIntentBits } from 'discord.js';
import { createLogger } from '../../src/log.js';
import { FakeDiscord, MESSAGE_CONTENT_INTENT } from './fake/discord.js';
import { alice, RecordingConversation, startRig, type Rig } from './helpers.js';

const MC = GatewayIntentBits.MessageContent;

let rig: Rig | undefined;
let spare: FakeDiscord | undefined;
afterEach(async () => {
  await rig?.close();
  await spare?.close();
  rig = undefined;
  spare = undefined;
});

/** A logger whose warnings the test reads. */
function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = createLogger({
    level: 'info',
    destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  const warnings = () => lines.filter((l) => l.level === 40).map((l) => l.msg);
  return { logger, warnings };
}

describe('discord Message Content intent', () => {
  it('auto: Discord refuses it (4014), one warning, connected without it', async () => {
    expect(MESSAGE_CONTENT_INTENT).toBe(MC);
    const fake = await new FakeDiscord().start();
    fake.disallowedIntents = MC;
    const { logger, warnings } = capturingLogger();
    rig = await startRig(new RecordingConversation(), { fake, logger });
    expect(fake.gateway.refusals).toBe(1);
    expect(fake.intents & MC).toBe(0);
    expect(fake.intents & GatewayIntentBits.GuildMessages).not.toBe(0);
    expect(rig.adapter.messageContent).toBe(false);
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatch(/Message Content intent is not enabled.*follow-ups in a thread/);
  });

  it('without it: mentions and DMs are answered; unreadable or image-only messages get no reply', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation, { messageContent: 'off' });
    const { fake } = rig;
    expect(fake.intents & MC).toBe(0);
    expect(fake.gateway.refusals).toBe(0);

    let done = conversation.done(() => true);
    const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> question`, {
      mentions: [fake.bot],
    });
    expect((await done).text).toBe('question');
    // A follow-up without a mention arrives empty: no "ask me something" reply. The mentioned
    // one after it is answered, and (answers keep arrival order) the empty one was seen first.
    fake.userMessage(asked.id, alice, 'a follow-up Discord withholds');
    done = conversation.done((m) => m.text === 'with a mention');
    fake.userMessage(asked.id, alice, `<@${fake.bot.id}> with a mention`, { mentions: [fake.bot] });
    await done;

    const dm = fake.dmChannel(alice);
    const picture = fake.attachment('cat.png', new Uint8Array([1, 2, 3]), 'image/png');
    fake.userMessage(dm.id, alice, '', { attachments: [picture] });
    done = conversation.done((m) => m.text === 'in private');
    fake.userMessage(dm.id, alice, 'in private');
    await done;

    expect(conversation.handled.map((m) => m.text)).toEqual([
      'question',
      'with a mention',
      'in private',
    ]);
    const said = fake.botMessages().map((m) => m.content);
    expect(said).toEqual(['ok', 'ok', 'ok']);
  });

  it('a mention with nothing after it still gets the hint', async () => {
    const conversation = new RecordingConversation();
    rig = await startRig(conversation, { messageContent: 'off' });
    const { fake } = rig;
    const hinted = fake.waitFor('message', () => true);
    fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}>`, { mentions: [fake.bot] });
    expect((await hinted) as { content: string }).toMatchObject({
      content: expect.stringContaining('Ask me something after the mention'),
    });
    expect(conversation.handled).toHaveLength(0);
  });

  it('on: a refusal fails the start with a message saying what to do', async () => {
    spare = await new FakeDiscord().start();
    spare.disallowedIntents = MC;
    const started = startRig(new RecordingConversation(), {
      fake: spare,
      messageContent: 'on',
    });
    await expect(started).rejects.toThrow(/Message Content Intent.*developer portal/);
    expect(spare.gateway.refusals).toBe(1);
  });

  it('auto: switched off while running (4014 later), reconnects without it and keeps answering', async () => {
    const conversation = new RecordingConversation();
    const { logger, warnings } = capturingLogger();
    rig = await startRig(conversation, { logger });
    const { fake } = rig;
    expect(fake.intents & MC).toBe(MC);
    fake.disallowedIntents = MC;
    const reidentified = fake.waitFor<number>('identify', (intents) => (intents & MC) === 0);
    fake.gateway.closeConnections(4014, 'Disallowed intent(s).');
    await reidentified;
    const done = conversation.done(() => true);
    fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> still there?`, {
      mentions: [fake.bot],
    });
    expect((await done).text).toBe('still there?');
    expect(rig.adapter.messageContent).toBe(false);
    expect(warnings().filter((w) => w.includes('Message Content'))).toHaveLength(1);
  });
});
