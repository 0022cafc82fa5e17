// `/chatbridge` at run time: Manage Server checked again (server admins can change who sees
// the command), answers ephemeral, deferred before anything that calls the service,
// autocomplete from the admin table's `suggest`, attachments downloaded at once.
import {
  ApplicationCommandOptionType,
  AttachmentBuilder,
  MessageFlags,
  PermissionFlagsBits,
  type AutocompleteInteraction,
  type ChatInputCommandInteraction,
  type CommandInteractionOption,
  type Interaction,
} from 'discord.js';
import type { Logger } from 'pino';
import { findCommand, hasError, runAdminCommand, suggest } from '../../src/admin/index.js';
import type { AdminCommand, AdminContext, AdminOutput, ArgSpec } from '../../src/admin/types.js';
import type { BridgeObserver } from '../../src/bridge/observer.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { StateStore } from '../../src/state/types.js';
import { NO_MENTIONS } from './client.js';
import { downloadAttachment, type FetchLike } from './commands/attachment.js';
import { COMMAND_NAME, isReferenceKind, optionName } from './commands/build.js';
import { renderAdminOutput } from './commands/render.js';
import { postUploadNotice, type UploadNotice } from './commands/upload-notice.js';
import { createFeedbackHandler, isFeedbackCustomId } from './feedback.js';
import { DEDUP_TTL_MS, DM_WORKSPACE, PLATFORM } from './messages.js';

export interface InteractionDeps {
  client: ServiceClient;
  state: StateStore;
  defaultChatbot?: string;
  maxUploadBytes: number;
  /** User ids that are admins everywhere, DMs included (CHATBRIDGE_ADMINS). */
  admins?: readonly string[];
  logger: Logger;
  fetch?: FetchLike;
  /** Told of feedback votes (metrics). */
  observer?: BridgeObserver;
  /** How long autocomplete waits for the service before answering no choices (tests: less). */
  autocompleteTimeoutMs?: number;
}

/** Discord drops an autocomplete not answered within 3 s: answer within 2.5, empty if need be. */
export const AUTOCOMPLETE_TIMEOUT_MS = 2500;

type AnyCommandInteraction = ChatInputCommandInteraction | AutocompleteInteraction;

const EPHEMERAL = MessageFlags.Ephemeral;
const MAX_CHOICES = 25;

/** The options of the subcommand, below its group. */
function leafOptions(
  data: readonly CommandInteractionOption[],
): readonly CommandInteractionOption[] {
  let options = data;
  for (;;) {
    const only = options[0];
    const nested =
      only?.type === ApplicationCommandOptionType.Subcommand ||
      only?.type === ApplicationCommandOptionType.SubcommandGroup;
    if (!nested) return options;
    options = only.options ?? [];
  }
}

function route(interaction: AnyCommandInteraction): { noun: string; verb: string } {
  const group = interaction.options.getSubcommandGroup(false);
  const sub = interaction.options.getSubcommand(false) ?? '';
  return group ? { noun: group, verb: sub } : { noun: sub, verb: '' };
}

function specFor(command: AdminCommand, option: string): ArgSpec | undefined {
  return command.args.find((spec) => optionName(spec.name) === option);
}

function context(interaction: AnyCommandInteraction, deps: InteractionDeps): AdminContext {
  const channel = interaction.channel;
  const inThread = channel?.isThread() ?? false;
  const dm = interaction.guildId === null;
  const channelId = interaction.channelId ?? undefined;
  // In a DM there are no member permissions: only CHATBRIDGE_ADMINS make an admin there.
  const isAdmin =
    (interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false) ||
    (deps.admins ?? []).includes(interaction.user.id);
  return {
    platform: PLATFORM,
    workspace: interaction.guildId ?? DM_WORKSPACE,
    // In a thread, the place is its channel (or forum); the thread is the session.
    channel: inThread && channel?.isThread() ? (channel.parentId ?? channelId) : channelId,
    thread: inThread || dm ? channelId : undefined,
    userId: interaction.user.id,
    isAdmin,
    client: deps.client,
    state: deps.state,
    defaultChatbot: deps.defaultChatbot,
  };
}

export function createInteractionHandler(deps: InteractionDeps) {
  const feedback = createFeedbackHandler({
    state: deps.state,
    observer: deps.observer,
    logger: deps.logger,
    dmWorkspace: DM_WORKSPACE,
  });

  return async function onInteraction(interaction: Interaction): Promise<void> {
    if (!ours(interaction)) return;
    // Every process holding the shard receives it (a rolling update, redundant replicas): the
    // first claim answers, so a command runs and a vote counts once.
    const claim = `${PLATFORM}:interaction:${interaction.id}`;
    if (!(await deps.state.dedup.claim(claim, DEDUP_TTL_MS))) return;
    if (interaction.isAutocomplete()) await complete(deps, interaction);
    else if (interaction.isChatInputCommand()) await run(deps, interaction);
    else if (interaction.isButton()) await feedback.button(interaction);
    else if (interaction.isModalSubmit()) await feedback.modal(interaction);
  };
}

async function answer(
  interaction: ChatInputCommandInteraction,
  output: AdminOutput[],
): Promise<void> {
  const [first, ...more] = renderAdminOutput(output);
  // Files a command made (an export) are attached to the first message.
  const files = output.flatMap((block) =>
    block.kind === 'file'
      ? [new AttachmentBuilder(Buffer.from(block.bytes), { name: block.name })]
      : [],
  );
  const deferred = interaction.deferred || interaction.replied;
  if (deferred)
    await interaction.editReply({ content: first, files, allowedMentions: NO_MENTIONS });
  else
    await interaction.reply({
      content: first,
      files,
      flags: EPHEMERAL,
      allowedMentions: NO_MENTIONS,
    });
  for (const content of more) {
    await interaction.followUp({ content, flags: EPHEMERAL, allowedMentions: NO_MENTIONS });
  }
}

/** The command's values; an attachment is downloaded at once and announced in the channel. */
async function args(
  deps: InteractionDeps,
  interaction: ChatInputCommandInteraction,
  command: AdminCommand,
  ctx: AdminContext,
): Promise<{ values: Record<string, unknown>; notice?: UploadNotice }> {
  const values: Record<string, unknown> = {};
  let notice: UploadNotice | undefined;
  for (const option of leafOptions(interaction.options.data)) {
    const spec = specFor(command, option.name);
    if (!spec) continue;
    if (spec.kind === 'file' && option.attachment) {
      const { name, url, size, contentType } = option.attachment;
      const file = await downloadAttachment(
        { name, url, size, contentType },
        { maxBytes: deps.maxUploadBytes, fetch: deps.fetch },
      );
      notice = await postUploadNotice(interaction, ctx, name, deps.logger);
      file.link = notice.link;
      values[spec.name] = file;
      ctx.file = file;
      continue;
    }
    // An unticked switch is the same as leaving it out.
    if (spec.kind === 'switch' && option.value === false) continue;
    values[spec.name] = option.value;
  }
  return { values, notice };
}

async function run(deps: InteractionDeps, interaction: ChatInputCommandInteraction): Promise<void> {
  const { noun, verb } = route(interaction);
  const command = findCommand(noun, verb);
  const ctx = context(interaction, deps);
  const inDm = interaction.guildId === null;
  if (command?.permission === 'admin' && !ctx.isAdmin) {
    await answer(interaction, [
      {
        kind: 'notice',
        tone: 'error',
        text: inDm
          ? `\`/${COMMAND_NAME} ${noun} ${verb}\` in a DM is for the user ids listed in CHATBRIDGE_ADMINS.`
          : `\`/${COMMAND_NAME} ${noun} ${verb}\` needs the Manage Server permission.`,
      },
    ]);
    return;
  }
  if (command && command.noun !== 'help') await interaction.deferReply({ flags: EPHEMERAL });
  let output: AdminOutput[];
  let notice: UploadNotice | undefined;
  try {
    let values: Record<string, unknown> = {};
    if (command) ({ values, notice } = await args(deps, interaction, command, ctx));
    output = await runAdminCommand(noun, verb, values, ctx);
  } catch (error) {
    deps.logger.info({ err: error, noun, verb }, 'discord: admin command failed');
    output = [{ kind: 'notice', tone: 'error', text: (error as Error).message }];
  }
  await notice?.settle(!hasError(output));
  if (inDm && noun === 'chatbot' && verb === 'default' && !hasError(output)) {
    output.push({
      kind: 'notice',
      tone: 'info',
      text: 'In DMs that means every direct message with the bot (no server default applies there).',
    });
  }
  await answer(interaction, output);
}

/** Answers an autocomplete in time: its choices, or none when the service is slow or down. */
async function complete(
  deps: InteractionDeps,
  interaction: AutocompleteInteraction,
): Promise<void> {
  const timeoutMs = deps.autocompleteTimeoutMs ?? AUTOCOMPLETE_TIMEOUT_MS;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, timeoutMs, 'late')));
  let choices: { name: string; value: string }[];
  try {
    const found = await Promise.race([choicesFor(deps, interaction), late]);
    if (found === 'late') {
      deps.logger.info({ timeoutMs }, 'discord: autocomplete answered empty: the service is slow');
    }
    choices = found === 'late' ? [] : found;
  } catch (error) {
    deps.logger.warn({ err: error }, 'discord: autocomplete answered empty: lookup failed');
    choices = [];
  } finally {
    clearTimeout(timer);
  }
  await interaction.respond(choices);
}

async function choicesFor(
  deps: InteractionDeps,
  interaction: AutocompleteInteraction,
): Promise<{ name: string; value: string }[]> {
  const { noun, verb } = route(interaction);
  const command = findCommand(noun, verb);
  const focused = interaction.options.getFocused(true);
  const spec = command && specFor(command, focused.name);
  const ctx = context(interaction, deps);
  // Names are not shown to someone who may not run the command.
  if (!command || !spec || (command.permission === 'admin' && !ctx.isAdmin)) return [];
  const typed = String(focused.value);
  // A list completes its last item; the items before it are kept in the value.
  const cut = spec.multiple ? typed.lastIndexOf(',') + 1 : 0;
  const before = typed.slice(0, cut);
  const current = typed.slice(cut).trim();
  let choices: { name: string; value: string }[];
  if (isReferenceKind(spec.kind)) {
    const chatbot = interaction.options.getString('chatbot') ?? undefined;
    const found = await suggest(spec.kind, current, ctx, { chatbot });
    choices = found.map((s) => ({ name: s.name, value: `${before}${s.value}` }));
  } else {
    choices = (spec.choices ?? [])
      .filter((c) => c.toLowerCase().includes(current.toLowerCase()))
      .map((c) => ({ name: c, value: `${before}${c}` }));
  }
  return choices.filter((c) => c.value.length <= 100).slice(0, MAX_CHOICES);
}

function ours(interaction: Interaction): boolean {
  return (
    ((interaction.isAutocomplete() || interaction.isChatInputCommand()) &&
      interaction.commandName === COMMAND_NAME) ||
    ((interaction.isButton() || interaction.isModalSubmit()) &&
      isFeedbackCustomId(interaction.customId))
  );
}
