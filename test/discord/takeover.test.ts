// Closing what a dead process left half-written, on the fake Discord through discord.js's REST:
// each opened message (recorded as channel/message) keeps what it showed and ends with the
// notice, as notices show on Discord, with no mention parsed; a message deleted since is
// skipped; a 429 is waited out; a full message is cut to fit.
import { afterEach, describe, expect, it } from 'vitest';
import { ChannelPace } from '../../adapters/discord/pace.js';
import { closeInterruptedMessages, openedId } from '../../adapters/discord/takeover.js';
import { INTERRUPTED_TEXT } from '../../src/bridge/takeover.js';
import { silentLogger } from '../../src/log.js';
import { snowflake, type FakeMessage } from './fake/payloads.js';
import { RecordingConversation, startRig, type Rig } from './helpers.js';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const NOTICE = `> \u26a0\ufe0f ${INTERRUPTED_TEXT}`;

function botMessage(r: Rig, content: string): FakeMessage {
  const { fake } = r;
  return fake.store({
    id: snowflake(),
    channel_id: fake.textChannel.id,
    guild_id: fake.guildId,
    author: fake.bot,
    content,
    mentions: [],
    attachments: [],
    allowedMentions: [],
    history: [content],
    flags: 0,
  });
}

describe('discord: closing interrupted messages', () => {
  it('ends each with the notice, keeps what it showed, skips a deleted one', async () => {
    rig = await startRig(new RecordingConversation());
    const { fake } = rig;
    const half = botMessage(rig, 'Half of the answer <@123>');
    const long = botMessage(rig, 'x'.repeat(2000));
    const pace = new ChannelPace();
    let limitedOnce = false;
    // The first edit is refused with a 429: waited out (by discord.js or here), then it lands.
    fake.rateLimiter = (request) => {
      if (request.method !== 'PATCH' || limitedOnce) return undefined;
      limitedOnce = true;
      return 50;
    };
    const ids = [half, undefined, long].map((m) =>
      openedId({ channelId: fake.textChannel.id, id: m?.id ?? snowflake() }),
    );
    await closeInterruptedMessages(
      {
        client: rig.adapter.discord,
        pace,
        logger: silentLogger,
        sleep: async () => {},
      },
      ids,
      INTERRUPTED_TEXT,
    );
    expect(limitedOnce).toBe(true);
    const closed = fake.messages.get(half.id)!;
    expect(closed.content).toBe(`Half of the answer <@123>\n\n${NOTICE}`);
    expect(closed.allowedMentions.at(-1)).toEqual({ parse: [] });
    const cut = fake.messages.get(long.id)!;
    expect(cut.content.length).toBeLessThanOrEqual(2000);
    expect(cut.content.endsWith(`\u2026\n\n${NOTICE}`)).toBe(true);
  });
});
