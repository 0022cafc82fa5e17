// tag create / update / list. Members are named by source title or uuid.
import type { SourceTag, SourceTagUpdateInput } from '../../service/types.js';
import { validateSourceTagCreate, validateSourceTagUpdate } from '../../service/validate.js';
import { AdminInputError } from '../errors.js';
import { checkedInput } from '../fields.js';
import { currentChatbot, resolveSources, resolveTag } from '../resolve.js';
import type { AdminCommand, AdminContext, AdminOutput } from '../types.js';
import { chatbotOption, defined, fields, flag, info, ok, positional, table } from './shared.js';

const sourcesArg = (help: string) => flag('sources', 'source', help, { multiple: true });

/** Source uuids → titles from the registry; unknown ones stay as uuids. */
async function memberNames(ctx: AdminContext, uuids: readonly string[]): Promise<string[]> {
  return Promise.all(uuids.map(async (uuid) => (await ctx.state.sources.get(uuid))?.title ?? uuid));
}

async function tagFields(ctx: AdminContext, tag: SourceTag): Promise<AdminOutput> {
  const members = await memberNames(ctx, tag.data_source_uuids ?? []);
  return fields(`Tag ${tag.name}`, [
    ['Name', tag.name],
    ['UUID', tag.uuid],
    ['Colour', tag.color],
    ['Sources', members.length === 0 ? '(none)' : members.join(', ')],
  ]);
}

const create: AdminCommand = {
  noun: 'tag',
  verb: 'create',
  summary: 'Create a source tag grouping data sources',
  permission: 'admin',
  args: [
    positional('name', 'text', 'Name of the tag'),
    flag('color', 'colour', 'Colour as #rrggbb, e.g. #1a2b3c', { required: true }),
    sourcesArg('Data sources in the tag (titles or uuids, comma-separated)'),
    chatbotOption,
  ],
  async run(ctx, args) {
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const sources = args.sources as string[] | undefined;
    const input = checkedInput(
      validateSourceTagCreate,
      defined({
        name: args.name as string,
        color: args.color as string,
        data_source_uuids: sources && (await resolveSources(ctx, uuid, sources, '--sources')),
      }),
      ['name'],
    );
    const tag = await ctx.client.createSourceTag(uuid, input);
    return [ok(`Created tag "${tag.name}".`), await tagFields(ctx, tag)];
  },
};

const update: AdminCommand = {
  noun: 'tag',
  verb: 'update',
  summary: 'Rename a tag, change its colour or its data sources',
  permission: 'admin',
  args: [
    positional('tag', 'tag', 'Tag by name or uuid'),
    flag('name', 'text', 'New name'),
    flag('color', 'colour', 'New colour as #rrggbb'),
    sourcesArg('Replace its data sources with these (titles or uuids)'),
    flag('add-sources', 'source', 'Add these data sources to it', { multiple: true }),
    flag('remove-sources', 'source', 'Take these data sources out of it', { multiple: true }),
    chatbotOption,
  ],
  async run(ctx, args) {
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const tag = await resolveTag(ctx, uuid, args.tag as string);
    const given = (name: string) => args[name] as string[] | undefined;
    let members: string[] | undefined;
    if (given('sources'))
      members = await resolveSources(ctx, uuid, given('sources') ?? [], '--sources');
    if (given('add-sources') || given('remove-sources')) {
      const add = await resolveSources(ctx, uuid, given('add-sources') ?? [], '--add-sources');
      const remove = await resolveSources(
        ctx,
        uuid,
        given('remove-sources') ?? [],
        '--remove-sources',
      );
      const base = members ?? tag.data_source_uuids ?? [];
      members = [...base, ...add.filter((id) => !base.includes(id))].filter(
        (id) => !remove.includes(id),
      );
    }
    const input = defined<SourceTagUpdateInput>({
      name: args.name as string | undefined,
      color: args.color as string | undefined,
      data_source_uuids: members,
    });
    if (Object.keys(input).length === 0) {
      throw new AdminInputError(
        undefined,
        'nothing to change: give --name, --color, --sources, --add-sources or --remove-sources',
        update,
      );
    }
    const updated = await ctx.client.updateSourceTag(
      tag.uuid,
      checkedInput(validateSourceTagUpdate, input),
    );
    return [ok(`Updated tag "${updated.name}".`), await tagFields(ctx, updated)];
  },
};

const list: AdminCommand = {
  noun: 'tag',
  verb: 'list',
  summary: 'List the source tags and the data sources in each',
  permission: 'admin',
  args: [chatbotOption],
  async run(ctx, args) {
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const tags = await ctx.client.listSourceTags(uuid);
    if (tags.length === 0)
      return [info('No source tags yet. Create one with `tag create <name> --color #hex`.')];
    const rows = await Promise.all(
      tags.map(async (t) => [
        t.name,
        t.color,
        (await memberNames(ctx, t.data_source_uuids ?? [])).join(', '),
        t.uuid,
      ]),
    );
    return [table('Source tags', ['Name', 'Colour', 'Sources', 'UUID'], rows)];
  },
};

export const tagCommands: AdminCommand[] = [create, update, list];
