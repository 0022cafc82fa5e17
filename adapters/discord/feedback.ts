// 👍/👎 under Discord answers: an action row with two buttons on the last message of an answer.
// Their custom_id is a short vote key, "cbfb:up:<answer>" (Discord allows 100 characters). A 👍
// is acknowledged with an ephemeral reply; a 👎 is recorded at once and answered with a modal
// asking, optionally, why; submitting it saves the reason with that 👎.
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  MessageFlags,
  ModalBuilder,
  TextInputBuilder,
  TextInputStyle,
  type ButtonInteraction,
  type ModalSubmitInteraction,
} from 'discord.js';
import type { Logger } from 'pino';
import {
  castVote,
  FEEDBACK_REASON_MAX,
  giveReason,
  REASON_THANKS,
  voteAcknowledgement,
  type FeedbackDeps,
  type FeedbackVote,
} from '../../src/bridge/index.js';
import { NO_MENTIONS } from './client.js';

const PREFIX = 'cbfb';
const REASON_INPUT = 'reason';
/** Discord's bound on a custom_id. */
const CUSTOM_ID_MAX = 100;

function voteCustomId(vote: FeedbackVote, answerId: string): string {
  return `${PREFIX}:${vote}:${answerId}`;
}

/**
 * The row of 👍/👎 buttons under an answer (as JSON, for message create and edit bodies);
 * undefined for an answer id too long for a custom_id (then the answer has no buttons).
 */
export function feedbackRow(answerId: string) {
  if (voteCustomId('down', answerId).length > CUSTOM_ID_MAX) return undefined;
  const button = (vote: FeedbackVote, emoji: string) =>
    new ButtonBuilder()
      .setCustomId(voteCustomId(vote, answerId))
      .setStyle(ButtonStyle.Secondary)
      .setEmoji(emoji);
  return new ActionRowBuilder<ButtonBuilder>()
    .addComponents(button('up', '👍'), button('down', '👎'))
    .toJSON();
}

type Parsed =
  { kind: 'vote'; vote: FeedbackVote; answerId: string } | { kind: 'reason'; id: string };

export function parseCustomId(customId: string): Parsed | undefined {
  const match = /^cbfb:(up|down|reason):(.+)$/.exec(customId);
  if (!match) return undefined;
  if (match[1] === 'reason') return { kind: 'reason', id: match[2]! };
  return { kind: 'vote', vote: match[1] as FeedbackVote, answerId: match[2]! };
}

export function isFeedbackCustomId(customId: string): boolean {
  return parseCustomId(customId) !== undefined;
}

function reasonModal(rowId: string): ModalBuilder {
  const input = new TextInputBuilder()
    .setCustomId(REASON_INPUT)
    .setLabel('What was wrong? (optional)')
    .setStyle(TextInputStyle.Paragraph)
    .setRequired(false)
    .setMaxLength(FEEDBACK_REASON_MAX);
  return new ModalBuilder()
    .setCustomId(`${PREFIX}:reason:${rowId}`)
    .setTitle('Your 👎 is saved. Tell us why?')
    .addComponents(new ActionRowBuilder<TextInputBuilder>().addComponents(input));
}

export interface DiscordFeedbackDeps extends FeedbackDeps {
  logger: Logger;
  /** The workspace of DMs (no guild). */
  dmWorkspace: string;
}

export function createFeedbackHandler(deps: DiscordFeedbackDeps) {
  const ephemeral = (content: string) => ({
    content,
    flags: MessageFlags.Ephemeral as const,
    allowedMentions: NO_MENTIONS,
  });

  async function button(interaction: ButtonInteraction): Promise<void> {
    const parsed = parseCustomId(interaction.customId);
    if (parsed?.kind !== 'vote') return;
    const outcome = await castVote(deps, {
      platform: 'discord',
      workspace: interaction.guildId ?? deps.dmWorkspace,
      answerId: parsed.answerId,
      userId: interaction.user.id,
      vote: parsed.vote,
    });
    if (outcome.kind === 'recorded' && parsed.vote === 'down') {
      await interaction.showModal(reasonModal(outcome.record.id));
      return;
    }
    await interaction.reply(ephemeral(voteAcknowledgement(outcome)));
  }

  async function modal(interaction: ModalSubmitInteraction): Promise<void> {
    const parsed = parseCustomId(interaction.customId);
    if (parsed?.kind !== 'reason') return;
    const reason = interaction.fields.getTextInputValue(REASON_INPUT).trim();
    if (reason === '') {
      await interaction.reply(ephemeral('Thanks for the 👎: it is saved.'));
      return;
    }
    const saved = await giveReason(deps, { id: parsed.id, userId: interaction.user.id, reason });
    await interaction.reply(
      ephemeral(saved ? REASON_THANKS : 'That rating changed meanwhile; the reason was not kept.'),
    );
  }

  return { button, modal };
}
