// Data sources created through chatbridge: a record per uuid, plus an ordered index per
// chatbot so list() reads one index and the records it names, never the whole namespace.
import type { Keyv } from 'keyv';
import type { RedisClient } from './keyv.js';
import type { SourceRecord, SourceRegistry } from './types.js';

/** The ordered uuids of one chatbot's sources. */
export interface SourceIndex {
  /** Appends uuid unless it is listed already. */
  append(chatbotUuid: string, uuid: string): Promise<void>;
  remove(chatbotUuid: string, uuid: string): Promise<void>;
  list(chatbotUuid: string): Promise<string[]>;
}

const APPEND_IF_ABSENT = `
if redis.call('LPOS', KEYS[1], ARGV[1]) == false then redis.call('RPUSH', KEYS[1], ARGV[1]) end
return 1
`;

/** Redis: a list per chatbot; append-if-absent is one Lua script, atomic across replicas. */
export class RedisSourceIndex implements SourceIndex {
  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
  ) {}

  private key(chatbotUuid: string): string {
    return `${this.prefix}:source-index:${chatbotUuid}`;
  }

  async append(chatbotUuid: string, uuid: string): Promise<void> {
    await this.redis.eval(APPEND_IF_ABSENT, { keys: [this.key(chatbotUuid)], arguments: [uuid] });
  }

  async remove(chatbotUuid: string, uuid: string): Promise<void> {
    await this.redis.lRem(this.key(chatbotUuid), 0, uuid);
  }

  async list(chatbotUuid: string): Promise<string[]> {
    return this.redis.lRange(this.key(chatbotUuid), 0, -1);
  }
}

/** Memory and SQLite: an array per chatbot in keyv; changes are serialized in this process. */
export class KeyvSourceIndex implements SourceIndex {
  private last: Promise<unknown> = Promise.resolve();

  constructor(private readonly space: Keyv<string[]>) {}

  private change(chatbotUuid: string, edit: (uuids: string[]) => string[]): Promise<void> {
    const next = this.last.then(async () => {
      const uuids = (await this.space.get(chatbotUuid)) ?? [];
      await this.space.set(chatbotUuid, edit(uuids));
    });
    this.last = next.catch(() => undefined);
    return next;
  }

  append(chatbotUuid: string, uuid: string): Promise<void> {
    return this.change(chatbotUuid, (uuids) => (uuids.includes(uuid) ? uuids : [...uuids, uuid]));
  }

  remove(chatbotUuid: string, uuid: string): Promise<void> {
    return this.change(chatbotUuid, (uuids) => uuids.filter((each) => each !== uuid));
  }

  async list(chatbotUuid: string): Promise<string[]> {
    await this.last;
    return (await this.space.get(chatbotUuid)) ?? [];
  }
}

function requireText(field: string, value: unknown): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new Error(`source ${field}: must be a non-empty string`);
  }
}

export class KeyvSourceRegistry implements SourceRegistry {
  constructor(
    private readonly records: Keyv<SourceRecord>,
    private readonly index: SourceIndex,
  ) {}

  async add(record: SourceRecord): Promise<void> {
    for (const field of ['uuid', 'chatbotUuid', 'title', 'type', 'createdAt'] as const) {
      requireText(field, record[field]);
    }
    if (record.link !== undefined) requireText('link', record.link);
    const previous = await this.records.get(record.uuid);
    await this.records.set(record.uuid, { ...record });
    if (previous && previous.chatbotUuid !== record.chatbotUuid) {
      await this.index.remove(previous.chatbotUuid, record.uuid);
    }
    await this.index.append(record.chatbotUuid, record.uuid);
  }

  async get(uuid: string): Promise<SourceRecord | undefined> {
    requireText('uuid', uuid);
    return (await this.records.get(uuid)) ?? undefined;
  }

  async list(chatbotUuid: string): Promise<SourceRecord[]> {
    requireText('chatbotUuid', chatbotUuid);
    const uuids = await this.index.list(chatbotUuid);
    if (uuids.length === 0) return [];
    const records = await this.records.getMany(uuids);
    return records.filter(
      (record): record is SourceRecord => record != null && record.chatbotUuid === chatbotUuid,
    );
  }

  /** Read-modify-write: concurrent updates of one source may overwrite each other. */
  async update(
    uuid: string,
    patch: Partial<Omit<SourceRecord, 'uuid' | 'chatbotUuid'>>,
  ): Promise<void> {
    requireText('uuid', uuid);
    const current = await this.records.get(uuid);
    if (!current) throw new Error(`source "${uuid}": not in the registry (add it first)`);
    const { title, type, link, createdAt } = patch;
    if (title !== undefined) requireText('title', title);
    if (type !== undefined) requireText('type', type);
    if (link !== undefined) requireText('link', link);
    await this.records.set(uuid, {
      ...current,
      ...(title !== undefined ? { title } : {}),
      ...(type !== undefined ? { type } : {}),
      ...(link !== undefined ? { link } : {}),
      ...(createdAt !== undefined ? { createdAt } : {}),
    });
  }
}
