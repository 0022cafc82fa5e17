// `source upload` leaves a visible trace in the channel: "📎 Added <file> as a data source of
// <chatbot>". That message's link is the source's reference link, since the command's own reply
// is ephemeral and nobody else can open it. Posted as "Adding…" before the upload, settled after.
import type { ChatInputCommandInteraction, Message } from 'discord.js';
import type { Logger } from 'pino';
import { currentChatbot } from '../../../src/admin/index.js';
import type { AdminContext } from '../../../src/admin/types.js';
import { NO_MENTIONS } from '../client.js';
import { escapeMarkdown } from '../format.js';

export interface UploadNotice {
  /** The visible message's link, or the channel's when it could not be posted. */
  link: string;
  /** Turns "Adding…" into "Added" after a successful upload, or removes it after a failure. */
  settle(added: boolean): Promise<void>;
}

export function channelLink(guildId: string | null, channelId: string): string {
  return `https://discord.com/channels/${guildId ?? '@me'}/${channelId}`;
}

async function chatbotName(ctx: AdminContext, ref: string | null): Promise<string | undefined> {
  const current = await currentChatbot(ctx, ref ?? undefined).catch(() => undefined);
  if (!current) return undefined;
  if (current.chatbot) return current.chatbot.name;
  const listed = await ctx.client.listChatbots().catch(() => []);
  return listed.find((c) => c.uuid === current.uuid)?.name ?? current.uuid;
}

export async function postUploadNotice(
  interaction: ChatInputCommandInteraction,
  ctx: AdminContext,
  fileName: string,
  logger: Logger,
): Promise<UploadNotice> {
  const fallback: UploadNotice = {
    link: channelLink(interaction.guildId, interaction.channelId),
    settle: async () => {},
  };
  // No chatbot to add to: the command fails with its own message, nothing to show here.
  const name = await chatbotName(ctx, interaction.options.getString('chatbot'));
  if (name === undefined) return fallback;
  const what = `**${escapeMarkdown(fileName)}** as a data source of **${escapeMarkdown(name)}**`;
  let message: Message;
  try {
    const channel =
      interaction.channel ?? (await interaction.client.channels.fetch(interaction.channelId));
    if (!channel?.isSendable()) return fallback;
    message = await channel.send({
      content: `\u{1f4ce} Adding ${what}\u2026`,
      allowedMentions: NO_MENTIONS,
    });
  } catch (error) {
    logger.info(
      { err: error, channel: interaction.channelId },
      'discord: could not post the upload notice; linking the channel',
    );
    return fallback;
  }
  return {
    link: message.url,
    async settle(added) {
      try {
        if (added)
          await message.edit({ content: `\u{1f4ce} Added ${what}`, allowedMentions: NO_MENTIONS });
        else await message.delete();
      } catch (error) {
        logger.info({ err: error }, 'discord: could not settle the upload notice');
      }
    },
  };
}
