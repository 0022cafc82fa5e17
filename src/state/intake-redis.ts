// The intake queue on Redis: one stream per platform with one consumer group, each replica a
// consumer of its own name. keep() adds the entry and delivers it to this replica in one script
// (XADD, then XREADGROUP of the one undelivered entry: every producer goes through the script,
// so nothing else is ever undelivered), so the entry sits in this consumer's pending list from
// the moment it exists. The holder renews it (XCLAIM JUSTID, only while still its own) and
// finish() acknowledges and deletes it (XACK, XDEL). An entry idle for longer than the lease is
// taken over with XAUTOCLAIM. A key per entry (SET NX) makes a redelivery lose; it outlives
// the entry by keyTtlMs. Leases run on Redis's clock (stream idle times), not the injected one.
import { randomUUID } from 'node:crypto';
import { LeaseRenewer, type IntakeOptions } from './intake-lease.js';
import type { RedisClient } from './keyv.js';
import type { IntakeQueue, IntakeStore, KeptEvent } from './types.js';

const GROUP = 'chatbridge';
/** While an entry waits for its answer, its key never expires before it (a day covers any). */
const PENDING_KEY_TTL_MS = 24 * 60 * 60_000;

// KEYS: stream, entry key. ARGV: group, consumer, key, payload, key TTL (ms).
const KEEP = `
if not redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[5]) then return false end
pcall(redis.call, 'XGROUP', 'CREATE', KEYS[1], ARGV[1], '$', 'MKSTREAM')
local id = redis.call('XADD', KEYS[1], '*', 'key', ARGV[3], 'payload', ARGV[4])
local read = redis.call('XREADGROUP', 'GROUP', ARGV[1], ARGV[2], 'COUNT', '1', 'STREAMS', KEYS[1], '>')
if (not read) or read[1][2][1][1] ~= id then return redis.error_reply('intake: entry not delivered') end
return id
`;

// KEYS: stream. ARGV: group, consumer, id. Resets the entry's idle time if it is still ours.
const RENEW = `
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], '1')
if #pending == 0 or pending[1][2] ~= ARGV[2] then return 0 end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], '0', ARGV[3], 'JUSTID')
return 1
`;

// KEYS: stream. ARGV: group, consumer, id, lease (ms). Lets the entry go if it is still ours:
// its idle time set to the lease, the next XAUTOCLAIM of any replica takes it (JUSTID: the
// delivery count is left as it is).
const RELEASE = `
local pending = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], '1')
if #pending == 0 or pending[1][2] ~= ARGV[2] then return 0 end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], '0', ARGV[3], 'IDLE', ARGV[4], 'JUSTID')
return 1
`;

// KEYS: live set. ARGV: consumer, lease (ms). Notes that this replica is sweeping now (Redis's
// clock), and forgets replicas silent for ten leases.
const SWEEPING = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - 10 * tonumber(ARGV[2]))
return 1
`;

// KEYS: live set. ARGV: consumer, lease (ms). 1 when another replica swept within the lease.
const LIVE_OTHERS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live = redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[2]), '+inf')
for _, name in ipairs(live) do
  if name ~= ARGV[1] then return 1 end
end
return 0
`;

// KEYS: stream, notes hash, entry key. ARGV: group, id, key TTL (ms).
const FINISH = `
redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[3])
return 1
`;

export class RedisIntakeStore implements IntakeStore {
  readonly leaseMs: number;
  private readonly queues = new Map<string, RedisIntakeQueue>();
  private readonly renewer: LeaseRenewer;

  constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    private readonly options: IntakeOptions,
    private readonly consumer: string = randomUUID(),
  ) {
    this.leaseMs = options.leaseMs;
    this.renewer = new LeaseRenewer(options);
  }

  queue(name: string): IntakeQueue {
    let queue = this.queues.get(name);
    if (!queue) {
      const keys = { stream: `${this.prefix}:intake:${name}`, name };
      queue = new RedisIntakeQueue(this.redis, keys, this.consumer, this.options, this.renewer);
      this.queues.set(name, queue);
    }
    return queue;
  }

  close(): void {
    this.renewer.stop();
  }
}

interface StreamEntry {
  id: string;
  fields: Record<string, string>;
}

class RedisIntakeQueue implements IntakeQueue {
  private readonly mine = new Set<string>();
  private readonly notes: string;
  /** Replicas sweeping this queue, by the time they last did (a sorted set). */
  private readonly alive: string;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: { stream: string; name: string },
    private readonly consumer: string,
    private readonly options: IntakeOptions,
    private readonly renewer: LeaseRenewer,
  ) {
    this.notes = `${keys.stream}:notes`;
    this.alive = `${keys.stream}:alive`;
  }

  get held(): number {
    return this.mine.size;
  }

  private entryKey(key: string): string {
    return `${this.keys.stream}:key:${key}`;
  }

  async keep(key: string, payload: string): Promise<KeptEvent | undefined> {
    const ttl = Math.max(PENDING_KEY_TTL_MS, this.options.keyTtlMs);
    const id = await this.redis.eval(KEEP, {
      keys: [this.keys.stream, this.entryKey(key)],
      arguments: [GROUP, this.consumer, key, payload, String(ttl)],
    });
    if (typeof id !== 'string') return undefined;
    this.hold(id);
    return { id, key, payload, deliveries: 1 };
  }

  async note(id: string, note: string): Promise<void> {
    if (!this.mine.has(id)) return;
    await this.redis.hSet(this.notes, id, note);
  }

  async finish(id: string): Promise<void> {
    const key = await this.keyOf(id);
    await this.redis.eval(FINISH, {
      keys: [this.keys.stream, this.notes, key === undefined ? this.notes : this.entryKey(key)],
      arguments: [GROUP, id, String(this.options.keyTtlMs)],
    });
    this.mine.delete(id);
    this.renewer.forget(this, id);
  }

  async release(id: string): Promise<void> {
    this.mine.delete(id);
    this.renewer.forget(this, id);
    await this.redis.eval(RELEASE, {
      keys: [this.keys.stream],
      arguments: [GROUP, this.consumer, id, String(this.options.leaseMs)],
    });
  }

  /**
   * Another replica is alive: one that looked for entries to take over within the last lease
   * (every replica does, from its start and a quarter lease apart, and notes the time in a
   * sorted set on Redis's clock; XINFO's consumer idle times do not show a replica that never
   * claimed anything).
   */
  async canHandOff(): Promise<boolean> {
    const live = await this.redis.eval(LIVE_OTHERS, {
      keys: [this.alive],
      arguments: [this.consumer, String(this.options.leaseMs)],
    });
    return Number(live) === 1;
  }

  private async keyOf(id: string): Promise<string | undefined> {
    const entry = await this.redis.xRange(this.keys.stream, id, id);
    return entry[0]?.message.key;
  }

  async claimExpired(max: number): Promise<KeptEvent[]> {
    const { stream } = this.keys;
    await this.redis.eval(SWEEPING, {
      keys: [this.alive],
      arguments: [this.consumer, String(this.options.leaseMs)],
    });
    let claimed: StreamEntry[];
    try {
      const reply = (await this.redis.sendCommand([
        'XAUTOCLAIM',
        stream,
        GROUP,
        this.consumer,
        String(this.options.leaseMs),
        '0-0',
        'COUNT',
        String(max),
      ])) as [string, Array<[string, string[]] | null>, ...unknown[]];
      claimed = reply[1].filter((e): e is [string, string[]] => e !== null).map(toEntry);
    } catch (error) {
      // No stream or group yet: nothing was ever kept, so nothing can be taken over.
      if (/NOGROUP/.test(String(error))) return [];
      throw error;
    }
    const kept: KeptEvent[] = [];
    for (const entry of claimed) {
      this.hold(entry.id);
      const [pending, note] = await Promise.all([
        this.redis.sendCommand(['XPENDING', stream, GROUP, entry.id, entry.id, '1']),
        this.redis.hGet(this.notes, entry.id),
      ]);
      const deliveries = Number(
        (pending as unknown as Array<[string, string, number, number]>)[0]?.[3] ?? 1,
      );
      kept.push({
        id: entry.id,
        key: entry.fields.key ?? '',
        payload: entry.fields.payload ?? '',
        deliveries,
        ...(typeof note === 'string' ? { note } : {}),
      });
    }
    return kept;
  }

  private hold(id: string): void {
    this.mine.add(id);
    this.renewer.watch(this, id, async () => {
      const renewed = await this.redis.eval(RENEW, {
        keys: [this.keys.stream],
        arguments: [GROUP, this.consumer, id],
      });
      if (Number(renewed) !== 1) this.mine.delete(id);
      return Number(renewed) === 1;
    });
  }
}

function toEntry([id, flat]: [string, string[]]): StreamEntry {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  return { id, fields };
}
