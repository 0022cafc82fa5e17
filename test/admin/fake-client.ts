// An in-memory ServiceClient for admin tests: validates with the foundation's rules like the
// real client, records every call, and can be told to fail.
import type { ServiceClient } from '../../src/service/api.js';
import { ServiceError } from '../../src/service/errors.js';
import type { Agent, Chatbot, DataSource, SourceTag } from '../../src/service/types.js';
import {
  validateAgentCreate,
  validateAgentUpdate,
  validateChatbotCreate,
  validateQaSource,
  validateSourceRename,
  validateSourceTagCreate,
  validateSourceTagUpdate,
  validateUpload,
  validateUrlSource,
} from '../../src/service/validate.js';

export interface Call {
  method: string;
  args: unknown[];
}

const stamp = '2025-01-01T00:00:00Z';

export class FakeClient implements ServiceClient {
  readonly calls: Call[] = [];
  readonly chatbots: Chatbot[] = [];
  readonly agents = new Map<string, Agent[]>();
  readonly sources = new Map<string, DataSource>();
  readonly tags = new Map<string, SourceTag[]>();
  /** Thrown by the next call, once. */
  failNext?: ServiceError;
  private counter = 0;

  private id(): string {
    this.counter += 1;
    return this.counter.toString(16).padStart(32, '0');
  }

  private record(method: string, args: unknown[]): void {
    this.calls.push({ method, args });
    const fail = this.failNext;
    this.failNext = undefined;
    if (fail) throw fail;
  }

  callsOf(method: string): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  private bot(uuid: string): Chatbot {
    const bot = this.chatbots.find((c) => c.uuid === uuid);
    if (!bot) throw new ServiceError('not_found', `chatbot ${uuid} not found`, { status: 404 });
    return bot;
  }

  addChatbot(name: string): Chatbot {
    const chatbot: Chatbot = {
      uuid: this.id(),
      name,
      created_at: stamp,
      modified_at: stamp,
      meta: {
        rate_limit: [20, 240],
        rate_limit_message: 'Too many messages',
        show_citations: true,
        visibility: 'private',
      },
    };
    this.chatbots.push(chatbot);
    this.agents.set(chatbot.uuid, [this.makeAgent('General Q&A', 'user-facing', true)]);
    this.tags.set(chatbot.uuid, []);
    return chatbot;
  }

  private makeAgent(name: string, type: string, enabled: boolean): Agent {
    return {
      uuid: this.id(),
      name,
      description: '',
      prompt: '',
      type,
      enabled,
      created_at: stamp,
      modified_at: stamp,
      meta: {},
      data_source_uuids: [],
      tool_functions: [],
    };
  }

  private makeSource(title: string, type: string): DataSource {
    const source: DataSource = {
      uuid: this.id(),
      title,
      type,
      status: type === 'url' ? 'await' : 'success',
      state: type === 'url' ? 'pending' : 'ready',
      file_name: '',
      file_size: 0,
      tokens: 0,
      meta_json: '{}',
      meta: {},
      created_at: stamp,
      modified_at: stamp,
    };
    this.sources.set(source.uuid, source);
    return source;
  }

  async createChatbot(...args: Parameters<ServiceClient['createChatbot']>) {
    this.record('createChatbot', args);
    const input = validateChatbotCreate(args[0]);
    const chatbot = this.addChatbot(input.name);
    chatbot.meta = {
      rate_limit: input.rate_limit ?? [20, 240],
      rate_limit_message: input.rate_limit_message ?? '',
      show_citations: input.show_citations ?? false,
      visibility: input.visibility ?? 'private',
    };
    return chatbot;
  }

  async listChatbots(...args: Parameters<ServiceClient['listChatbots']>) {
    this.record('listChatbots', args);
    return [...this.chatbots];
  }

  async listAgents(...args: Parameters<ServiceClient['listAgents']>) {
    this.record('listAgents', args);
    this.bot(args[0]);
    return [...(this.agents.get(args[0]) ?? [])];
  }

  async createAgent(...args: Parameters<ServiceClient['createAgent']>) {
    this.record('createAgent', args);
    this.bot(args[0]);
    const input = validateAgentCreate(args[1]);
    const agent = this.makeAgent(input.name, input.type, false);
    agent.description = input.description ?? '';
    agent.prompt = input.prompt ?? '';
    agent.meta = { ...input.meta, model: input.model, temperature: input.temperature };
    this.agents.get(args[0])?.push(agent);
    return agent;
  }

  async updateAgent(...args: Parameters<ServiceClient['updateAgent']>) {
    this.record('updateAgent', args);
    const input = validateAgentUpdate(args[1]);
    const agent = [...this.agents.values()].flat().find((a) => a.uuid === args[0]);
    if (!agent) throw new ServiceError('not_found', 'agent not found', { status: 404 });
    const { meta, model, temperature, use_all_sources, ...rest } = input;
    Object.assign(agent, rest);
    agent.meta = { ...agent.meta, ...meta };
    if (model !== undefined) agent.meta.model = model;
    if (temperature !== undefined) agent.meta.temperature = temperature;
    if (use_all_sources !== undefined) agent.meta.use_all_sources = use_all_sources;
    return { ...agent, variables: (input.variables ?? []) as Agent['variables'] };
  }

  async addQaSource(...args: Parameters<ServiceClient['addQaSource']>) {
    this.record('addQaSource', args);
    this.bot(args[0]);
    const input = validateQaSource(args[1]);
    return this.makeSource(input.question, 'qa');
  }

  async addUrlSource(...args: Parameters<ServiceClient['addUrlSource']>) {
    this.record('addUrlSource', args);
    this.bot(args[0]);
    const input = validateUrlSource(args[1]);
    const existing = [...this.sources.values()].find((s) => s.title === input.url);
    if (existing) throw new ServiceError('conflict', 'already exists', { status: 409, existing });
    return this.makeSource(input.url, 'url');
  }

  async uploadSource(...args: Parameters<ServiceClient['uploadSource']>) {
    this.record('uploadSource', args);
    this.bot(args[0]);
    const input = validateUpload(args[1]);
    const source = this.makeSource(input.file_name, 'upload');
    source.file_name = input.file_name;
    return source;
  }

  async renameSource(...args: Parameters<ServiceClient['renameSource']>) {
    this.record('renameSource', args);
    const input = validateSourceRename(args[1]);
    const source = this.sources.get(args[0]);
    if (!source) throw new ServiceError('not_found', 'data source not found', { status: 404 });
    source.title = input.title;
    return { ...source };
  }

  async listSourceTags(...args: Parameters<ServiceClient['listSourceTags']>) {
    this.record('listSourceTags', args);
    this.bot(args[0]);
    return [...(this.tags.get(args[0]) ?? [])];
  }

  async createSourceTag(...args: Parameters<ServiceClient['createSourceTag']>) {
    this.record('createSourceTag', args);
    this.bot(args[0]);
    const input = validateSourceTagCreate(args[1]);
    const tag: SourceTag = {
      uuid: this.id(),
      name: input.name,
      color: input.color,
      data_source_uuids: input.data_source_uuids ?? [],
      created_at: stamp,
      modified_at: stamp,
    };
    this.tags.get(args[0])?.push(tag);
    return tag;
  }

  async updateSourceTag(...args: Parameters<ServiceClient['updateSourceTag']>) {
    this.record('updateSourceTag', args);
    const input = validateSourceTagUpdate(args[1]);
    const tag = [...this.tags.values()].flat().find((t) => t.uuid === args[0]);
    if (!tag) throw new ServiceError('not_found', 'tag not found', { status: 404 });
    Object.assign(tag, input);
    return { ...tag };
  }

  async createSession(): Promise<never> {
    throw new Error('not used by admin commands');
  }

  async streamMessage(): Promise<never> {
    throw new Error('not used by admin commands');
  }

  async listMessages(): Promise<never> {
    throw new Error('not used by admin commands');
  }

  async close(): Promise<void> {}
}
