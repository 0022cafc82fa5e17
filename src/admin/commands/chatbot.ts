// chatbot create / list / show / use / default.
import { VISIBILITIES, type Chatbot, type ChatbotCreateInput } from '../../service/types.js';
import { validateChatbotCreate } from '../../service/validate.js';
import { AdminRefusal } from '../errors.js';
import { checkedInput } from '../fields.js';
import { channelPlace, currentChatbot, resolveChatbotRef, workspacePlace } from '../resolve.js';
import type { AdminCommand, AdminOutput } from '../types.js';
import {
  ON_OFF,
  chatbotOption,
  defined,
  fields,
  flag,
  info,
  ok,
  onOff,
  positional,
  table,
} from './shared.js';

function chatbotFields(chatbot: Chatbot, title = `Chatbot ${chatbot.name}`): AdminOutput {
  const meta = chatbot.meta;
  const limit = Array.isArray(meta?.rate_limit)
    ? `${meta.rate_limit[0]}/${meta.rate_limit[1]} s`
    : undefined;
  return fields(title, [
    ['Name', chatbot.name],
    ['UUID', chatbot.uuid],
    ['Visibility', meta?.visibility],
    ['Rate limit', limit],
    ['Rate limit message', meta?.rate_limit_message || undefined],
    ['Citations', onOff(meta?.show_citations)],
  ]);
}

const create: AdminCommand = {
  noun: 'chatbot',
  verb: 'create',
  summary: 'Create a chatbot (it comes with a General Q&A agent)',
  permission: 'admin',
  args: [
    positional('name', 'text', 'Name of the new chatbot'),
    flag('visibility', 'enum', 'Who may use it', { choices: VISIBILITIES }),
    flag('rate-limit', 'rate-limit', 'Messages per seconds, N/S, e.g. 20/240 (N 1-100, S 1-360)'),
    flag('rate-limit-message', 'text', 'What users read when the rate limit is hit'),
    flag('citations', 'boolean', 'Show citations under answers', { choices: ON_OFF }),
  ],
  async run(ctx, args) {
    const input = checkedInput(
      validateChatbotCreate,
      defined<ChatbotCreateInput>({
        name: args.name as string,
        visibility: args.visibility as ChatbotCreateInput['visibility'],
        rate_limit: args['rate-limit'] as [number, number] | undefined,
        rate_limit_message: args['rate-limit-message'] as string | undefined,
        show_citations: args.citations as boolean | undefined,
      }),
      ['name'],
    );
    const chatbot = await ctx.client.createChatbot(input);
    return [
      ok(`Created chatbot "${chatbot.name}".`),
      chatbotFields(chatbot),
      info(
        `Answer with it here: \`chatbot use ${chatbot.uuid}\` (or \`chatbot default\` for the whole workspace).`,
      ),
    ];
  },
};

const list: AdminCommand = {
  noun: 'chatbot',
  verb: 'list',
  summary: 'List the chatbots and which one answers here',
  permission: 'admin',
  args: [],
  async run(ctx) {
    const chatbots = await ctx.client.listChatbots();
    const place = channelPlace(ctx);
    const inChannel = place === undefined ? undefined : await ctx.state.bindings.get(place);
    const inWorkspace = await ctx.state.bindings.get(workspacePlace(ctx));
    if (chatbots.length === 0)
      return [info('No chatbots yet. Create one with `chatbot create <name>`.')];
    const rows = chatbots.map((c) => {
      const marks = [
        c.uuid === inChannel ? 'this channel' : '',
        c.uuid === inWorkspace ? 'workspace default' : '',
      ]
        .filter(Boolean)
        .join(', ');
      const limit = Array.isArray(c.meta?.rate_limit)
        ? `${c.meta.rate_limit[0]}/${c.meta.rate_limit[1]}`
        : '';
      return [
        c.name,
        c.uuid,
        String(c.meta?.visibility ?? ''),
        limit,
        onOff(c.meta?.show_citations) ?? '',
        marks,
      ];
    });
    return [
      table('Chatbots', ['Name', 'UUID', 'Visibility', 'Rate limit', 'Citations', 'Bound'], rows),
    ];
  },
};

const show: AdminCommand = {
  noun: 'chatbot',
  verb: 'show',
  summary: 'Show the chatbot that answers here (or the one named)',
  permission: 'admin',
  args: [chatbotOption],
  async run(ctx, args) {
    const current = await currentChatbot(ctx, args.chatbot);
    const chatbot =
      current.chatbot ?? (await ctx.client.listChatbots()).find((c) => c.uuid === current.uuid);
    const where = {
      option: 'named',
      channel: 'bound to this channel',
      workspace: 'workspace default',
      default: 'answers where nothing is bound',
    }[current.via];
    if (!chatbot) {
      return [
        info(
          `The chatbot ${where} (${current.uuid}) is not on the service any more; bind another.`,
        ),
      ];
    }
    return [chatbotFields(chatbot, `Chatbot ${chatbot.name} (${where})`)];
  },
};

const use: AdminCommand = {
  noun: 'chatbot',
  verb: 'use',
  summary: 'Make a chatbot answer in this channel',
  permission: 'admin',
  args: [positional('chatbot', 'chatbot', 'Chatbot by name or uuid')],
  async run(ctx, args) {
    const place = channelPlace(ctx);
    if (place === undefined) {
      throw new AdminRefusal(
        '`chatbot use` binds the channel it is typed in; use `chatbot default` here.',
      );
    }
    const chatbot = await resolveChatbotRef(ctx, args.chatbot as string, '<chatbot>');
    await ctx.state.bindings.set(place, chatbot.uuid);
    return [ok(`"${chatbot.name}" now answers in this channel.`)];
  },
};

const byDefault: AdminCommand = {
  noun: 'chatbot',
  verb: 'default',
  summary: 'Make a chatbot answer everywhere in this workspace without its own',
  permission: 'admin',
  args: [positional('chatbot', 'chatbot', 'Chatbot by name or uuid')],
  async run(ctx, args) {
    const chatbot = await resolveChatbotRef(ctx, args.chatbot as string, '<chatbot>');
    await ctx.state.bindings.set(workspacePlace(ctx), chatbot.uuid);
    return [ok(`"${chatbot.name}" is now the default chatbot of this workspace.`)];
  },
};

export const chatbotCommands: AdminCommand[] = [create, list, show, use, byDefault];
