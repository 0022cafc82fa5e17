// chatbridge's state: openState(url) gives the thread → session map, place bindings, the
// registry of data sources, event de-duplication, the intake queue of events not yet answered
// (intake-redis.ts, intake-local.ts), per-thread locks and the message →
// conversation links of reply chains, per-workspace thread-context settings, assistant
// threads' viewing contexts and greetings, Slack installations and votes on answers (feedback)
// on one store.
//
//   memory://                 this process only, gone on exit (tests, trials)
//   sqlite://path             the embedded default; survives restarts; ONE process only
//                             (dedup and locks are coordinated in process memory)
//   redis://… / rediss://…    shared by several replicas: dedup and locks are atomic in Redis
import pLimit from 'p-limit';
import { silentLogger, type Logger } from '../log.js';
import { openDatabase } from '../sqlite.js';
import { KeyvAssistantSettings, KeyvViewingContextMap } from './assistant.js';
import { LocalDedup, RedisDedup } from './dedup.js';
import { KeyvFeedbackIndex, KeyvFeedbackStore, RedisFeedbackIndex } from './feedback.js';
import { openKeyvStore, type StoreKind } from './keyv.js';
import { KeyvSealedMap } from './installations.js';
import { LocalIntakeStore } from './intake-local.js';
import { RedisIntakeStore } from './intake-redis.js';
import { LocalThreadLocks } from './local-locks.js';
import {
  KeyvBindingMap,
  KeyvReplyLinkMap,
  KeyvSessionMap,
  KeyvThreadContextSettings,
} from './maps.js';
import { LocalRateBudget, RedisRateBudget } from './rate-budget.js';
import { RedisThreadLocks } from './redis-locks.js';
import { KeyvSourceIndex, KeyvSourceRegistry, RedisSourceIndex } from './sources.js';
import type { StateStore } from './types.js';

export type * from './types.js';
export { LockLostError, LockUnavailableError } from './errors.js';
export { maskUrl, storeKind } from './keyv.js';
export { VIEWING_CONTEXT_TTL_MS } from './assistant.js';
export { EncryptedInstallations } from './installations.js';
export { parseSecretKey, SealedValueError, SecretKeyError } from './secret-box.js';
export { LocalRateBudget, RedisRateBudget, takeWhenFree } from './rate-budget.js';

/** Where the app keeps its state when CHATBRIDGE_STORE is not set. */
export const DEFAULT_STORE_URL = 'sqlite://data/chatbridge.sqlite';

/** How long a reply link lasts unless StateOptions.replyLinkTtlMs says otherwise: 30 days. */
export const DEFAULT_REPLY_LINK_TTL_MS = 30 * 24 * 60 * 60_000;

export interface StateOptions {
  /**
   * Clock (ms since epoch): dedup expiry on memory and SQLite, reply link expiry, session
   * resetAt. Date.now.
   */
  now?: () => number;
  logger?: Pick<Logger, 'warn'>;
  /**
   * Redis: lease TTL of a thread lock and heartbeat deadline of a waiter, i.e. how long a
   * crashed replica can hold up a thread. Renewed every third of it. Default 15 s.
   */
  lockTtlMs?: number;
  /** After this long a thread's lock passes on even if its job hangs (signal aborts). 10 min. */
  maxLockLifetimeMs?: number;
  /**
   * Thread jobs running at once in this process; more wait, FIFO. Default 1000: a safety net,
   * since the engine's maxConcurrentStreams (200) is the bound on answers streaming at once.
   */
  maxConcurrent?: number;
  /** How long a reply link (state.replyLinks) lasts after it was set. Default 30 days. */
  replyLinkTtlMs?: number;
  /** Redis: prefix of the keys written outside keyv (dedup, locks, source index). */
  keyPrefix?: string;
  /** Redis: how long each connection opened (the store's, the locks' subscriber's) may take. 5 s. */
  connectTimeoutMs?: number;
  /**
   * Intake: how long an event's holder may go silent before another replica (or, on SQLite,
   * the restarted process) takes it over. Renewed every third of it. Default 15 s.
   */
  intakeLeaseMs?: number;
  /**
   * How often the thread locks' leases (Redis) and the intake's are renewed: a busy process
   * may run this much less than a lease late before it loses them. A third of each by default;
   * a whole number of ms, less than lockTtlMs and intakeLeaseMs.
   */
  leaseRenewMs?: number;
  /** Intake: how long a finished event's key stays known (redeliveries dropped). Default 1 h. */
  intakeKeyTtlMs?: number;
}

export interface State extends StateStore {
  readonly kind: StoreKind;
  /** Resolves when the store answers a trivial request now (readiness checks). */
  ping(): Promise<void>;
  /** The store URL with any password masked, for logs. */
  readonly displayUrl: string;
}

function wholeAtLeastOne(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`state option ${name}: must be a whole number of at least 1, got ${value}`);
  }
  return value;
}

const positiveInteger = (name: string, value: number | undefined, fallback: number): number =>
  wholeAtLeastOne(name, value ?? fallback);

export async function openState(url: string, options: StateOptions = {}): Promise<State> {
  const logger = options.logger ?? silentLogger;
  const now = options.now ?? Date.now;
  const lockTtlMs = positiveInteger('lockTtlMs', options.lockTtlMs, 15_000);
  const maxLockLifetimeMs = positiveInteger(
    'maxLockLifetimeMs',
    options.maxLockLifetimeMs,
    600_000,
  );
  if (lockTtlMs < 20) throw new Error(`state option lockTtlMs: must be at least 20 ms`);
  if (maxLockLifetimeMs < lockTtlMs) {
    throw new Error('state option maxLockLifetimeMs: must be at least lockTtlMs');
  }
  const replyLinkTtlMs = positiveInteger(
    'replyLinkTtlMs',
    options.replyLinkTtlMs,
    DEFAULT_REPLY_LINK_TTL_MS,
  );
  const limiter = pLimit(positiveInteger('maxConcurrent', options.maxConcurrent, 1000));
  const intakeLeaseMs = positiveInteger('intakeLeaseMs', options.intakeLeaseMs, 15_000);
  const leaseRenewMs =
    options.leaseRenewMs === undefined
      ? undefined
      : wholeAtLeastOne('leaseRenewMs', options.leaseRenewMs);
  // A lease renewed no sooner than it ends is lost before each renewal.
  if (leaseRenewMs !== undefined && leaseRenewMs >= Math.min(lockTtlMs, intakeLeaseMs)) {
    throw new Error(
      `state option leaseRenewMs: must be less than lockTtlMs (${lockTtlMs}) and ` +
        `intakeLeaseMs (${intakeLeaseMs}), got ${leaseRenewMs}`,
    );
  }
  const renewal = leaseRenewMs === undefined ? {} : { renewEveryMs: leaseRenewMs };
  const prefix = options.keyPrefix ?? 'chatbridge';
  if (!/^[\w.-]+$/.test(prefix)) {
    throw new Error('state option keyPrefix: letters, digits, "_", "." and "-" only');
  }

  const store = await openKeyvStore(url, {
    logger,
    ...(options.connectTimeoutMs !== undefined
      ? { connectTimeoutMs: options.connectTimeoutMs }
      : {}),
  });
  // keyv namespaces are prefixed too: the local service may share this store.
  const space = <V>(name: string) => store.namespace<V>(`${prefix}.${name}`);
  try {
    const redis = store.redis;
    const sources = new KeyvSourceRegistry(
      space('sources'),
      redis ? new RedisSourceIndex(redis, prefix) : new KeyvSourceIndex(space('source-index')),
    );
    const locks = redis
      ? await RedisThreadLocks.open({
          redis,
          prefix,
          limiter,
          lockTtlMs,
          ...renewal,
          maxLockLifetimeMs,
          logger,
          ...(options.connectTimeoutMs !== undefined
            ? { connectTimeoutMs: options.connectTimeoutMs }
            : {}),
        })
      : new LocalThreadLocks({ limiter, maxLockLifetimeMs, logger });
    const dedup = redis ? new RedisDedup(redis, prefix) : new LocalDedup(space('dedup'), now);
    if (dedup instanceof LocalDedup) await dedup.sweep();
    const intakeOptions = {
      leaseMs: intakeLeaseMs,
      keyTtlMs: positiveInteger('intakeKeyTtlMs', options.intakeKeyTtlMs, 3_600_000),
      ...renewal,
      now,
      logger,
    };
    // memory://: the same table as SQLite's, in a database of this process's own.
    const ownDb = redis || store.sqlite ? undefined : openDatabase(':memory:');
    const intake = redis
      ? new RedisIntakeStore(redis, prefix, intakeOptions)
      : new LocalIntakeStore((store.sqlite ?? ownDb)!, intakeOptions, prefix);
    let closing: Promise<void> | undefined;
    return {
      kind: store.kind,
      displayUrl: store.displayUrl,
      async ping() {
        if (redis) await redis.ping();
        else await space('__probe').get('probe');
      },
      sessions: new KeyvSessionMap(space('sessions'), now),
      bindings: new KeyvBindingMap(space('bindings')),
      sources,
      dedup,
      locks,
      replyLinks: new KeyvReplyLinkMap(space('reply-links'), replyLinkTtlMs, now),
      rateBudget: redis ? new RedisRateBudget(redis, prefix) : new LocalRateBudget(now),
      threadContext: new KeyvThreadContextSettings(space('thread-context')),
      viewingContexts: new KeyvViewingContextMap(space('viewing-contexts')),
      assistantSettings: new KeyvAssistantSettings(space('assistant-settings')),
      installations: new KeyvSealedMap(space('installations')),
      feedback: new KeyvFeedbackStore(
        space('feedback-answers'),
        space('feedback'),
        redis
          ? new RedisFeedbackIndex(redis, prefix)
          : new KeyvFeedbackIndex(space('feedback-index')),
        now,
      ),
      intake,
      close() {
        if (closing) return closing; // node:sqlite's close() throws when already closed
        intake.close();
        ownDb?.close();
        // Locks first: they release leases through the connection the store closes.
        closing = locks.close().then(() => store.close());
        return closing;
      },
    };
  } catch (err) {
    await store.close();
    throw err;
  }
}
