// Storage of the local service in keyv (memory, SQLite or Redis). keyv has no portable listing,
// so each collection keeps an index list (chatbots of an owner, agents of a chatbot, …).
// Read-modify-write of a list runs under a per-key lock; one process owns a store.
import type { Keyv } from 'keyv';
import type { KeyvStore } from '../state/keyv.js';
import type {
  AgentRecord,
  ChatbotRecord,
  MessageWire,
  SessionRecord,
  SourceRecord,
  SourceTagRecord,
} from './records.js';

class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await work();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

export class Repository {
  private readonly lock = new KeyedLock();
  private readonly chatbots: Keyv<ChatbotRecord>;
  private readonly agents: Keyv<AgentRecord>;
  private readonly sources: Keyv<SourceRecord>;
  private readonly tags: Keyv<SourceTagRecord>;
  private readonly sessions: Keyv<SessionRecord>;
  private readonly messages: Keyv<MessageWire[]>;
  private readonly lists: Keyv<string[]>;
  /** chatbot + content hash (uploads) or chatbot + URL → source uuid. */
  private readonly lookups: Keyv<string>;

  constructor(store: KeyvStore) {
    this.chatbots = store.namespace('ls-chatbots');
    this.agents = store.namespace('ls-agents');
    this.sources = store.namespace('ls-sources');
    this.tags = store.namespace('ls-tags');
    this.sessions = store.namespace('ls-sessions');
    this.messages = store.namespace('ls-messages');
    this.lists = store.namespace('ls-lists');
    this.lookups = store.namespace('ls-lookups');
  }

  private async list(key: string): Promise<string[]> {
    return (await this.lists.get(key)) ?? [];
  }

  private addToList(key: string, id: string): Promise<void> {
    return this.lock.run(`list:${key}`, async () => {
      const ids = await this.list(key);
      if (!ids.includes(id)) await this.lists.set(key, [...ids, id]);
    });
  }

  private removeFromList(key: string, id: string): Promise<void> {
    return this.lock.run(`list:${key}`, async () => {
      const ids = await this.list(key);
      if (ids.includes(id))
        await this.lists.set(
          key,
          ids.filter((x) => x !== id),
        );
    });
  }

  private async many<V>(space: Keyv<V>, ids: string[]): Promise<V[]> {
    const found = await Promise.all(ids.map((id) => space.get(id)));
    return found.filter((v): v is Awaited<V> & V => v !== undefined && v !== null);
  }

  // ---- chatbots ----
  async createChatbot(record: ChatbotRecord): Promise<void> {
    await this.chatbots.set(record.uuid, record);
    await this.addToList(`chatbots:${record.owner}`, record.uuid);
  }
  getChatbot(uuid: string): Promise<ChatbotRecord | undefined> {
    return this.chatbots.get(uuid);
  }
  async listChatbots(owner: string): Promise<ChatbotRecord[]> {
    return this.many(this.chatbots, await this.list(`chatbots:${owner}`));
  }

  // ---- agents ----
  async createAgent(record: AgentRecord): Promise<void> {
    await this.agents.set(record.uuid, record);
    await this.addToList(`agents:${record.chatbotUuid}`, record.uuid);
  }
  getAgent(uuid: string): Promise<AgentRecord | undefined> {
    return this.agents.get(uuid);
  }
  async saveAgent(record: AgentRecord): Promise<void> {
    await this.agents.set(record.uuid, record);
  }
  async listAgents(chatbotUuid: string): Promise<AgentRecord[]> {
    return this.many(this.agents, await this.list(`agents:${chatbotUuid}`));
  }

  // ---- data sources ----
  async createSource(record: SourceRecord): Promise<void> {
    await this.sources.set(record.uuid, record);
    await this.addToList(`sources:${record.chatbotUuid}`, record.uuid);
  }
  getSource(uuid: string): Promise<SourceRecord | undefined> {
    return this.sources.get(uuid);
  }
  async listSources(chatbotUuid: string): Promise<SourceRecord[]> {
    return this.many(this.sources, await this.list(`sources:${chatbotUuid}`));
  }
  /** Changes a stored source under its lock, so a background fetch and a rename do not clash. */
  updateSource(
    uuid: string,
    change: (record: SourceRecord) => Promise<SourceRecord> | SourceRecord,
  ): Promise<SourceRecord | undefined> {
    return this.lock.run(`source:${uuid}`, async () => {
      const current = await this.sources.get(uuid);
      if (!current) return undefined;
      const next = await change(current);
      await this.sources.set(uuid, next);
      return next;
    });
  }
  /** Runs work alone for a key (e.g. one upload of the same bytes at a time). */
  exclusive<T>(key: string, work: () => Promise<T>): Promise<T> {
    return this.lock.run(`x:${key}`, work);
  }
  lookup(key: string): Promise<string | undefined> {
    return this.lookups.get(key);
  }
  async remember(key: string, sourceUuid: string): Promise<void> {
    await this.lookups.set(key, sourceUuid);
  }

  /** URL sources still waiting for their fetch, resumed after a restart. */
  pendingFetches(): Promise<string[]> {
    return this.list('pending-fetches');
  }
  markFetchPending(sourceUuid: string): Promise<void> {
    return this.addToList('pending-fetches', sourceUuid);
  }
  markFetchDone(sourceUuid: string): Promise<void> {
    return this.removeFromList('pending-fetches', sourceUuid);
  }

  // ---- source tags ----
  async createTag(record: SourceTagRecord): Promise<void> {
    await this.tags.set(record.uuid, record);
    await this.addToList(`tags:${record.chatbotUuid}`, record.uuid);
  }
  getTag(uuid: string): Promise<SourceTagRecord | undefined> {
    return this.tags.get(uuid);
  }
  async saveTag(record: SourceTagRecord): Promise<void> {
    await this.tags.set(record.uuid, record);
  }
  async listTags(chatbotUuid: string): Promise<SourceTagRecord[]> {
    return this.many(this.tags, await this.list(`tags:${chatbotUuid}`));
  }

  // ---- sessions and messages ----
  async createSession(record: SessionRecord): Promise<void> {
    await this.sessions.set(record.uuid, record);
  }
  getSession(uuid: string): Promise<SessionRecord | undefined> {
    return this.sessions.get(uuid);
  }
  async saveSession(record: SessionRecord): Promise<void> {
    await this.sessions.set(record.uuid, record);
  }
  async listMessages(sessionUuid: string): Promise<MessageWire[]> {
    return (await this.messages.get(sessionUuid)) ?? [];
  }
  appendMessage(sessionUuid: string, message: MessageWire): Promise<void> {
    return this.lock.run(`messages:${sessionUuid}`, async () => {
      const current = await this.listMessages(sessionUuid);
      await this.messages.set(sessionUuid, [...current, message]);
    });
  }
}
