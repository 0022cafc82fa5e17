// agent list / create / update.
import {
  AGENT_TYPES,
  type Agent,
  type AgentCreateInput,
  type AgentMetaInput,
  type AgentUpdateInput,
  type AgentVariable,
  type AgentVariableInput,
} from '../../service/types.js';
import { validateAgentCreate, validateAgentUpdate } from '../../service/validate.js';
import { AdminInputError } from '../errors.js';
import { checkedInput } from '../fields.js';
import { currentChatbot, resolveAgent, resolveSources } from '../resolve.js';
import type { AdminArgs, AdminCommand, AdminOutput, ArgSpec } from '../types.js';
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

const unit = { min: 0, max: 1 };

/** Settings shared by create and update. */
const settingArgs: ArgSpec[] = [
  flag('description', 'text', 'What the agent is for'),
  flag('prompt', 'text', 'Instructions of the agent'),
  flag('model', 'text', 'Language model id, e.g. gpt-4o-mini-4k'),
  flag('temperature', 'number', 'Temperature, 0 to 1 (user-facing agents)', unit),
  flag('bias', 'number', 'Bias, 0 to 1', unit),
  flag('stickness', 'number', 'Stickiness, 0 to 1 (the service spells it "stickness")', unit),
  flag('default-message', 'text', 'Default message (pre-canned and spam-defense agents)'),
  flag('use-all-sources', 'boolean', 'Answer from all data sources', { choices: ON_OFF }),
];

function metaFrom(args: AdminArgs): AgentMetaInput | undefined {
  const meta = defined<AgentMetaInput>({
    bias: args.bias as number | undefined,
    stickness: args.stickness as number | undefined,
    default_message: args['default-message'] as string | undefined,
  });
  return Object.keys(meta).length === 0 ? undefined : meta;
}

function agentFields(agent: Agent, title: string): AdminOutput {
  const meta = agent.meta ?? {};
  return fields(title, [
    ['Name', agent.name],
    ['UUID', agent.uuid],
    ['Type', agent.type],
    ['Enabled', onOff(agent.enabled)],
    ['Description', agent.description || undefined],
    ['Model', meta.model],
    ['Temperature', meta.temperature?.toString()],
    ['Bias', meta.bias?.toString()],
    ['Stickness', meta.stickness?.toString()],
    ['Default message', meta.default_message || undefined],
    ['Use all sources', onOff(meta.use_all_sources)],
    [
      'Sources',
      agent.data_source_uuids?.length ? String(agent.data_source_uuids.length) : undefined,
    ],
    [
      'Variables',
      agent.variables
        ?.map((v: AgentVariable) => `${v.name}=${v.default_value?.content ?? ''}`)
        .join(', ') || undefined,
    ],
  ]);
}

const list: AdminCommand = {
  noun: 'agent',
  verb: 'list',
  summary: "List the chatbot's agents",
  permission: 'admin',
  args: [chatbotOption],
  async run(ctx, args) {
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const agents = await ctx.client.listAgents(uuid);
    if (agents.length === 0) return [info('This chatbot has no agents.')];
    const rows = agents.map((a) => [
      a.name,
      a.type,
      onOff(a.enabled) ?? '',
      a.meta?.model ?? '',
      a.uuid,
    ]);
    return [table('Agents', ['Name', 'Type', 'Enabled', 'Model', 'UUID'], rows)];
  },
};

const create: AdminCommand = {
  noun: 'agent',
  verb: 'create',
  summary: 'Create an agent (new agents start disabled)',
  permission: 'admin',
  args: [
    positional('name', 'text', 'Name of the new agent'),
    flag('type', 'enum', 'Kind of agent', { choices: AGENT_TYPES, required: true }),
    ...settingArgs,
    chatbotOption,
  ],
  async run(ctx, args) {
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const meta = defined<AgentMetaInput>({
      ...metaFrom(args),
      use_all_sources: args['use-all-sources'] as boolean | undefined,
    });
    const input = checkedInput(
      validateAgentCreate,
      defined<AgentCreateInput>({
        name: args.name as string,
        type: args.type as AgentCreateInput['type'],
        description: args.description as string | undefined,
        prompt: args.prompt as string | undefined,
        model: args.model as string | undefined,
        temperature: args.temperature as number | undefined,
        meta: Object.keys(meta).length === 0 ? undefined : meta,
      }),
      ['name'],
    );
    const agent = await ctx.client.createAgent(uuid, input);
    return [
      ok(
        `Created agent "${agent.name}". It starts disabled: \`agent update ${agent.uuid} --enable\`.`,
      ),
      agentFields(agent, `Agent ${agent.name}`),
    ];
  },
};

const update: AdminCommand = {
  noun: 'agent',
  verb: 'update',
  summary: "Change an agent's settings, enable or disable it",
  permission: 'admin',
  args: [
    positional('agent', 'agent', 'Agent by name or uuid'),
    flag('name', 'text', 'New name'),
    ...settingArgs,
    flag('enable', 'switch', 'Turn the agent on'),
    flag('disable', 'switch', 'Turn the agent off'),
    flag('variables', 'variables', 'Variables: name=value,name2=value2 or a JSON array'),
    flag('sources', 'source', 'Data sources it answers from (titles or uuids)', { multiple: true }),
    chatbotOption,
  ],
  async run(ctx, args) {
    if (args.enable === true && args.disable === true) {
      throw new AdminInputError('--enable/--disable', 'give only one of them');
    }
    const { uuid } = await currentChatbot(ctx, args.chatbot);
    const agent = await resolveAgent(ctx, uuid, args.agent as string);
    const enabled = args.enable === true ? true : args.disable === true ? false : undefined;
    const sources = args.sources as string[] | undefined;
    const input = defined<AgentUpdateInput>({
      name: args.name as string | undefined,
      description: args.description as string | undefined,
      prompt: args.prompt as string | undefined,
      model: args.model as string | undefined,
      temperature: args.temperature as number | undefined,
      use_all_sources: args['use-all-sources'] as boolean | undefined,
      enabled,
      variables: args.variables as AgentVariableInput[] | undefined,
      data_source_uuids: sources && (await resolveSources(ctx, uuid, sources, '--sources')),
      meta: metaFrom(args),
    });
    if (Object.keys(input).length === 0) {
      const options = update.args.filter((a) => !a.positional && a.name !== 'chatbot');
      throw new AdminInputError(
        undefined,
        `nothing to change: give at least one of ${options.map((a) => `--${a.name}`).join(', ')}`,
        update,
      );
    }
    const updated = await ctx.client.updateAgent(
      agent.uuid,
      checkedInput(validateAgentUpdate, input),
    );
    return [ok(`Updated agent "${updated.name}".`), agentFields(updated, `Agent ${updated.name}`)];
  },
};

export const agentCommands: AdminCommand[] = [list, create, update];
