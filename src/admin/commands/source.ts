// source add-qa / add-url / upload / rename / list. Every source created here is recorded in
// the state's source registry, since the service has no endpoint that lists them.
import { isServiceError } from '../../service/errors.js';
import type { DataSource } from '../../service/types.js';
import {
  validateQaSource,
  validateSourceRename,
  validateUpload,
  validateUrlSource,
} from '../../service/validate.js';
import { checkedInput } from '../fields.js';
import { currentChatbot, resolveSource } from '../resolve.js';
import type { AdminCommand, AdminContext, AdminFile, AdminOutput } from '../types.js';
import { chatbotOption, fields, flag, info, ok, positional, table } from './shared.js';

const nowIso = (ctx: AdminContext): string => (ctx.now ? ctx.now() : new Date()).toISOString();

async function record(ctx: AdminContext, chatbotUuid: string, source: DataSource, link?: string) {
  const known = await ctx.state.sources.get(source.uuid);
  if (known) {
    await ctx.state.sources.update(source.uuid, { title: source.title, type: source.type });
    return;
  }
  await ctx.state.sources.add({
    uuid: source.uuid,
    chatbotUuid,
    title: source.title,
    type: source.type,
    ...(link === undefined ? {} : { link }),
    createdAt: nowIso(ctx),
  });
}

function sourceFields(source: DataSource, link?: string): AdminOutput {
  return fields(`Data source ${source.title}`, [
    ['Title', source.title],
    ['UUID', source.uuid],
    ['Type', source.type],
    ['Status', source.status || undefined],
    ['Link', link],
  ]);
}

/** Adds a source; a 409 carrying the existing source records that one instead. */
async function addOrExisting(
  ctx: AdminContext,
  chatbotUuid: string,
  link: string | undefined,
  add: () => Promise<DataSource>,
): Promise<{ source: DataSource; added: boolean; output: AdminOutput[] }> {
  try {
    const source = await add();
    await record(ctx, chatbotUuid, source, link);
    const output = [ok(`Added data source "${source.title}".`), sourceFields(source, link)];
    return { source, added: true, output };
  } catch (error) {
    if (!isServiceError(error, 'conflict') || !error.existing) throw error;
    const source = error.existing;
    await record(ctx, chatbotUuid, source, link);
    const output = [
      info(`This chatbot already has that data source: "${source.title}".`),
      sourceFields(source, link),
    ];
    return { source, added: false, output };
  }
}

const addQa: AdminCommand = {
  noun: 'source',
  verb: 'add-qa',
  summary: 'Add a question and its answer as a data source',
  permission: 'admin',
  args: [
    positional('question', 'text', 'The question'),
    positional('answer', 'text', 'Its answer'),
    chatbotOption,
  ],
  async run(ctx, args) {
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const input = checkedInput(
      validateQaSource,
      { question: args.question as string, answer: args.answer as string },
      ['question', 'answer'],
    );
    const { output } = await addOrExisting(ctx, uuid, undefined, () =>
      ctx.client.addQaSource(uuid, input),
    );
    return output;
  },
};

const addUrl: AdminCommand = {
  noun: 'source',
  verb: 'add-url',
  summary: 'Add the content of a web page as a data source',
  permission: 'admin',
  args: [positional('url', 'url', 'Address of the page (http or https)'), chatbotOption],
  async run(ctx, args) {
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const input = checkedInput(validateUrlSource, { url: args.url as string }, ['url']);
    const { added, output } = await addOrExisting(ctx, uuid, input.url, () =>
      ctx.client.addUrlSource(uuid, input),
    );
    return added ? [...output, info('The service fetches the page in the background.')] : output;
  },
};

const upload: AdminCommand = {
  noun: 'source',
  verb: 'upload',
  summary: 'Upload a file (pdf, docx, txt, md, csv, xlsx, …) as a data source',
  permission: 'admin',
  args: [
    positional('file', 'file', 'The file: a path on the command line, an attachment in chat'),
    flag('title', 'text', 'Title to give it (default: the file name)'),
    flag('link', 'url', 'Where the file can be read, shown with citations'),
    chatbotOption,
  ],
  async run(ctx, args) {
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const file = args.file as AdminFile;
    const link = (args.link as string | undefined) ?? file.link;
    const input = checkedInput(
      validateUpload,
      {
        file: file.bytes,
        file_name: file.name,
        ...(file.contentType === undefined ? {} : { content_type: file.contentType }),
        ...(link === undefined ? {} : { reference_source_link: link }),
      },
      ['file'],
    );
    const { source, output } = await addOrExisting(ctx, uuid, link, () =>
      ctx.client.uploadSource(uuid, input),
    );
    const title = args.title as string | undefined;
    if (title === undefined || title === source.title) return output;
    const renamed = await ctx.client.renameSource(source.uuid, { title });
    await ctx.state.sources.update(source.uuid, { title: renamed.title });
    return [ok(`Uploaded "${file.name}" as "${renamed.title}".`), sourceFields(renamed, link)];
  },
};

const rename: AdminCommand = {
  noun: 'source',
  verb: 'rename',
  summary: 'Give a data source a new title',
  permission: 'admin',
  args: [
    positional('source', 'source', 'Data source by title or uuid'),
    positional('title', 'text', 'The new title'),
    chatbotOption,
  ],
  async run(ctx, args) {
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const found = await resolveSource(ctx, uuid, args.source as string, '<source>');
    const input = checkedInput(validateSourceRename, { title: args.title as string }, ['title']);
    const renamed = await ctx.client.renameSource(found.uuid, input);
    if (found.title === undefined) {
      await record(ctx, uuid, renamed);
    } else {
      await ctx.state.sources.update(found.uuid, { title: renamed.title });
    }
    const before = found.title === undefined ? found.uuid : `"${found.title}"`;
    return [ok(`Renamed ${before} to "${renamed.title}".`)];
  },
};

const list: AdminCommand = {
  noun: 'source',
  verb: 'list',
  summary: 'List the data sources added through chatbridge',
  permission: 'admin',
  args: [chatbotOption],
  async run(ctx, args) {
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const records = await ctx.state.sources.list(uuid);
    if (records.length === 0) {
      return [
        info('No data sources added through chatbridge yet (the service cannot list others).'),
      ];
    }
    const rows = records.map((r) => [
      r.title,
      r.type,
      r.link ?? '',
      r.uuid,
      r.createdAt.slice(0, 10),
    ]);
    return [table('Data sources', ['Title', 'Type', 'Link', 'UUID', 'Added'], rows)];
  },
};

export const sourceCommands: AdminCommand[] = [addQa, addUrl, upload, rename, list];
