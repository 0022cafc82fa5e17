// feedback list / export / add-qa: the 👍/👎 people gave answers, so an admin finds the
// questions the knowledge base answers badly and turns them into Q&A sources. On Slack and
// Discord an admin sees the votes of their own workspace; the terminal (CLI, console chat) is
// the operator's and sees every workspace.
import { AdminInputError } from '../errors.js';
import { EXPORT_FORMATS, exportFile, type ExportFormat } from '../feedback-export.js';
import { resolveChatbotRef, workspacePlace } from '../resolve.js';
import type { AdminArgs, AdminCommand, AdminContext, AdminOutput } from '../types.js';
import type { FeedbackFilter, FeedbackRecord } from '../../state/types.js';
import { fields, flag, info, ok, positional, table } from './shared.js';
import { sourceCommands } from './source.js';

const LOCAL_PLATFORMS = new Set(['console', 'cli']);
const DEFAULT_LIMIT = 25;
const VOTE_MARK = { up: '👍', down: '👎' } as const;

const filterArgs = [
  flag('chatbot', 'chatbot', 'Only votes on this chatbot (name or uuid; default: every chatbot)'),
  flag('negative', 'switch', 'Only 👎 votes'),
  flag('since', 'duration', 'Only votes cast or changed within this time, e.g. 30m, 12h, 7d, 2w'),
];

const nowOf = (ctx: AdminContext): Date => (ctx.now ? ctx.now() : new Date());

/** Where the admin may look: their own workspace on a platform, everywhere on the terminal. */
function scopeOf(ctx: AdminContext): string | undefined {
  return LOCAL_PLATFORMS.has(ctx.platform) ? undefined : workspacePlace(ctx);
}

async function filterOf(ctx: AdminContext, args: AdminArgs): Promise<FeedbackFilter> {
  const chatbot =
    typeof args.chatbot === 'string'
      ? (await resolveChatbotRef(ctx, args.chatbot, '--chatbot')).uuid
      : undefined;
  const scope = scopeOf(ctx);
  return {
    ...(chatbot ? { chatbotUuid: chatbot } : {}),
    ...(args.negative === true ? { vote: 'down' as const } : {}),
    ...(typeof args.since === 'number' ? { since: nowOf(ctx).getTime() - args.since } : {}),
    ...(scope ? { workspace: scope } : {}),
  };
}

function describe(filter: FeedbackFilter, args: AdminArgs): string {
  const parts = [filter.vote === 'down' ? '👎 votes' : 'votes'];
  if (typeof args.chatbot === 'string') parts.push(`on ${args.chatbot}`);
  if (typeof args.since === 'number') parts.push('in that time');
  return parts.join(' ');
}

const when = (iso: string): string => iso.slice(0, 16).replace('T', ' ');

const list: AdminCommand = {
  noun: 'feedback',
  verb: 'list',
  summary: 'List the 👍/👎 people gave answers, newest first',
  permission: 'admin',
  args: [
    ...filterArgs,
    flag('limit', 'number', `Most rows shown, 1-500 (default ${DEFAULT_LIMIT})`, {
      min: 1,
      max: 500,
    }),
  ],
  async run(ctx, args) {
    const filter = await filterOf(ctx, args);
    const rows = await ctx.state.feedback.list(filter);
    if (rows.length === 0) return [info(`No ${describe(filter, args)} yet.`)];
    const limit = typeof args.limit === 'number' ? Math.floor(args.limit) : DEFAULT_LIMIT;
    // The terminal sees every workspace (many Slack installs, Discord servers): say whose.
    const everywhere = scopeOf(ctx) === undefined;
    const shown = rows
      .slice(0, limit)
      .map((row) => [
        row.id,
        when(row.updatedAt),
        ...(everywhere ? [`${row.platform}:${row.workspace}`] : []),
        VOTE_MARK[row.vote],
        row.question,
        row.reason ?? '',
      ]);
    const down = rows.filter((row) => row.vote === 'down').length;
    const out: AdminOutput[] = [
      table(
        'Feedback',
        ['ID', 'When (UTC)', ...(everywhere ? ['Where'] : []), 'Vote', 'Question', 'Reason'],
        shown,
      ),
      info(
        `${rows.length} ${rows.length === 1 ? 'vote' : 'votes'}: ${rows.length - down} 👍, ${down} 👎.` +
          (rows.length > limit ? ` Showing the newest ${limit}; \`--limit\` shows more.` : '') +
          ' `feedback export` gives every row; `feedback add-qa <id> <answer>` teaches the right answer.',
      ),
    ];
    return out;
  },
};

const exportCommand: AdminCommand = {
  noun: 'feedback',
  verb: 'export',
  summary: 'Export the votes as a CSV or JSON Lines file',
  permission: 'admin',
  args: [
    flag('format', 'enum', 'File format', { choices: EXPORT_FORMATS, required: true }),
    ...filterArgs,
    {
      ...flag(
        'out',
        'text',
        'Where to write the file (command line only; default: a dated name here)',
      ),
      localOnly: true,
    },
  ],
  async run(ctx, args) {
    const out = args.out as string | undefined;
    if (out !== undefined && !ctx.writeFile) {
      throw new AdminInputError(
        '--out',
        'is for the command line; here the file comes attached to the answer',
        exportCommand,
      );
    }
    const rows = await ctx.state.feedback.list(await filterOf(ctx, args));
    const file = exportFile(rows, args.format as ExportFormat, nowOf(ctx));
    const count = `${rows.length} ${rows.length === 1 ? 'row' : 'rows'}`;
    if (ctx.writeFile) {
      const path = await ctx.writeFile(out ?? file.name, file.bytes);
      return [ok(`Wrote ${count} to ${path}.`)];
    }
    return [ok(`Exported ${count} as ${file.name}.`), { kind: 'file', ...file }];
  },
};

async function rowFor(ctx: AdminContext, id: string): Promise<FeedbackRecord> {
  const row = await ctx.state.feedback.get(id.trim()).catch(() => undefined);
  const scope = scopeOf(ctx);
  if (!row || (scope && `${row.platform}:${row.workspace}` !== scope)) {
    throw new AdminInputError('<id>', `no feedback row "${id}" here (\`feedback list\` shows ids)`);
  }
  return row;
}

const addQa: AdminCommand = {
  noun: 'feedback',
  verb: 'add-qa',
  summary: "Teach a feedback row's question: add it and your answer as a Q&A source",
  permission: 'admin',
  args: [
    positional('id', 'text', 'The feedback row (its ID in feedback list)'),
    positional('answer', 'text', 'The right answer to its question'),
  ],
  async run(ctx, args) {
    const row = await rowFor(ctx, args.id as string);
    const [addQaSource] = sourceCommands.filter((c) => c.verb === 'add-qa');
    const output = await addQaSource!.run(ctx, {
      question: row.question,
      answer: args.answer as string,
      chatbot: row.chatbotUuid,
    });
    return [
      ...output,
      fields('From feedback', [
        ['Row', row.id],
        ['Vote', VOTE_MARK[row.vote]],
        ['Reason', row.reason],
      ]),
    ];
  },
};

export const feedbackCommands: AdminCommand[] = [list, exportCommand, addQa];
