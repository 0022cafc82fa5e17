// Lua scripts of the Redis thread lock: a fair ticket lock per thread. Each script runs
// atomically in Redis, so replicas sharing one Redis see one consistent queue per thread.
//
// Keys of one thread (the {…} hash tag keeps them in one cluster slot):
//   ticket   INCR counter: the last ticket handed out
//   serving  the ticket whose turn it is
//   waiters  ZSET ticket → heartbeat deadline (Redis server time, ms) of tickets still waiting
//   lease    the holder's random owner token, with a TTL renewed while its job runs
// Deadlines use Redis TIME, so replicas with skewed clocks agree on who is dead.
import type { RedisClient } from './keyv.js';

export interface LockKeys {
  ticket: string;
  serving: string;
  waiters: string;
  lease: string;
}

export function lockKeys(prefix: string, threadKey: string): LockKeys {
  const base = `${prefix}:lock:{${threadKey}}`;
  return {
    ticket: `${base}:ticket`,
    serving: `${base}:serving`,
    waiters: `${base}:waiters`,
    lease: `${base}:lease`,
  };
}

/** The pub/sub channel on which a release names the thread whose turn moved on. */
export function releaseChannel(prefix: string): string {
  return `${prefix}:lock-released`;
}

// Shared head: KEYS = ticket, serving, waiters, lease; the last ARGV is the idle TTL (ms) after
// which the keys of a forgotten thread vanish. Every script refreshes it on the three queue keys.
const HEAD = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function touch(idle)
  redis.call('PEXPIRE', KEYS[1], idle)
  redis.call('PEXPIRE', KEYS[2], idle)
  redis.call('PEXPIRE', KEYS[3], idle)
end
`;

/** ARGV: waiterTtlMs, idleTtlMs. Returns the new ticket, registered as a live waiter. */
const ENQUEUE = `${HEAD}
local t = redis.call('INCR', KEYS[1])
if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('SET', KEYS[2], t) end
redis.call('ZADD', KEYS[3], now_ms() + tonumber(ARGV[1]), t)
touch(ARGV[2])
return t
`;

/**
 * ARGV: ticket, token, leaseTtlMs, waiterTtlMs, idleTtlMs.
 * Returns 1 acquired, 0 keep waiting, -1 this ticket was skipped as dead (enqueue again).
 * Also the heartbeat of a waiting ticket. Skips the ticket being served when it is dead: no
 * lease and no live heartbeat (a crashed waiter, or a holder whose lease expired).
 */
const ACQUIRE = `${HEAD}
local me = tonumber(ARGV[1])
local now = now_ms()
if not redis.call('ZSCORE', KEYS[3], me) then return -1 end
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), me)
touch(ARGV[5])
while true do
  local serving = tonumber(redis.call('GET', KEYS[2]) or '0')
  if serving > me then return -1 end
  if redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
  if serving == me then
    redis.call('SET', KEYS[4], ARGV[2], 'PX', ARGV[3])
    redis.call('ZREM', KEYS[3], me)
    return 1
  end
  local deadline = redis.call('ZSCORE', KEYS[3], serving)
  if deadline and tonumber(deadline) >= now then return 0 end
  redis.call('ZREM', KEYS[3], serving)
  redis.call('SET', KEYS[2], serving + 1)
end
`;

/** ARGV: token, leaseTtlMs, idleTtlMs. Returns 1 renewed, 0 the lease is no longer ours. */
const RENEW = `${HEAD}
if redis.call('GET', KEYS[4]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[4], ARGV[2])
touch(ARGV[3])
return 1
`;

/**
 * ARGV: token, ticket, channel, threadKey, idleTtlMs. Compare-and-delete: only the owner
 * releases; then the turn passes to the next ticket and waiters are woken. Returns 1 or 0.
 */
const RELEASE = `${HEAD}
if redis.call('GET', KEYS[4]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[4])
local me = tonumber(ARGV[2])
if tonumber(redis.call('GET', KEYS[2]) or '0') == me then redis.call('SET', KEYS[2], me + 1) end
touch(ARGV[5])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
`;

/** ARGV: ticket, channel, threadKey. A waiter giving up: its ticket is skipped at once. */
const ABANDON = `
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 1
`;

const SCRIPTS = { ENQUEUE, ACQUIRE, RENEW, RELEASE, ABANDON };
export type LockScript = keyof typeof SCRIPTS;

/**
 * Runs one script. EVAL (not EVALSHA with a NOSCRIPT fallback) keeps commands from one
 * connection in the order they were issued, which is what makes tickets follow run() order.
 * Redis caches the compiled script, so resending its short text costs little.
 */
export async function runLockScript(
  redis: RedisClient,
  script: LockScript,
  keys: LockKeys,
  args: Array<string | number>,
): Promise<number> {
  const reply = await redis.eval(SCRIPTS[script], {
    keys: [keys.ticket, keys.serving, keys.waiters, keys.lease],
    arguments: args.map(String),
  });
  return Number(reply);
}
