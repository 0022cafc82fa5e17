// Shared set-up for the Discord tests: the fake, the adapter on it, and a recording Conversation
// for tests of routing and of the reply surface alone.
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { createDiscordAdapter, type DiscordAdapter } from '../../adapters/discord/adapter.js';
import type { MessageContentMode } from '../../adapters/discord/config.js';
import type { DiscordShards } from '../../adapters/discord/shards.js';
import type { BridgeObserver } from '../../src/bridge/observer.js';
import type {
  Conversation,
  IncomingMessage,
  ReplyTarget,
  ThreadRef,
} from '../../src/bridge/types.js';
import { threadKey } from '../../src/bridge/types.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { ProxySettings } from '../../src/service/index.js';
import { createLogger, silentLogger } from '../../src/log.js';
import { openState, type State } from '../../src/state/index.js';
import type { RateBudget } from '../../src/state/types.js';
import type { FakeTime } from '../fake-time.js';
import { FakeDiscord, TOKEN } from './fake/discord.js';
import { user } from './fake/payloads.js';

/**
 * Virtual time per step of fake time: Discord's paces and retry_after are whole seconds, and a
 * loopback round trip lands within a step, so a quarter second keeps every wait in order at a
 * few real milliseconds each (a step only ever makes I/O look slower, never a wait shorter).
 */
const FAKE_STEP_MS = 250;

export const alice = user('100000000000000001', 'alice');
export const otherBot = user('100000000000000009', 'otherbot', true);

/** The state key of the bot's thread opened on message `thread` in a server's text channel. */
export function threadKeyIn(
  server: { guildId: string; textChannel: { id: string } },
  thread: string,
): string {
  return threadKey({
    platform: 'discord',
    workspace: server.guildId,
    channel: server.textChannel.id,
    thread,
  });
}

export type Script = (message: IncomingMessage, target: ReplyTarget) => Promise<void>;

/** A Conversation that records what it was asked and answers with a script. */
export class RecordingConversation extends EventEmitter implements Conversation {
  readonly handled: IncomingMessage[] = [];
  readonly sessions = new Set<string>();
  readonly resets: ThreadRef[] = [];
  script: Script = async (_message, target) => {
    const reply = await target.openMessage('ok');
    await reply.finish({ text: 'ok', sources: [] });
  };

  async handle(message: IncomingMessage, target: ReplyTarget): Promise<void> {
    this.handled.push(message);
    this.sessions.add(threadKey(message));
    this.emit('handling', message);
    await this.script(message, target);
    this.emit('handled', message);
  }

  async hasSession(thread: ThreadRef): Promise<boolean> {
    return this.sessions.has(threadKey(thread));
  }

  /** As the engine: the session ends, the thread stays known (follow-ups need no mention). */
  async reset(thread: ThreadRef): Promise<void> {
    this.resets.push(thread);
  }

  /** Resolves when a message matching the predicate has been fully answered. */
  done(predicate: (message: IncomingMessage) => boolean): Promise<IncomingMessage> {
    return new Promise((resolve) => {
      const listener = (message: IncomingMessage) => {
        if (!predicate(message)) return;
        this.off('handled', listener);
        resolve(message);
      };
      this.on('handled', listener);
    });
  }
}

export interface Rig {
  fake: FakeDiscord;
  state: State;
  adapter: DiscordAdapter;
  /** Fake time (`fakeTime: true`), faked once the adapter is connected; restored by close(). */
  time?: FakeTime;
  /**
   * Awaits `promise`; on fake time, moving time on until it settles, so the adapter's pacing
   * (edit intervals, 429 retry_after, retries of the store) costs no wall-clock time.
   */
  settle<T>(promise: Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export async function startRig(
  conversation: Conversation,
  options: {
    client?: ServiceClient;
    state?: State;
    fake?: FakeDiscord;
    maxUploadBytes?: number;
    minUpdateMs?: number;
    messageContent?: MessageContentMode;
    admins?: string[];
    logger?: Logger;
    /** Paces REST calls by this budget (the state store's in production). */
    rateBudget?: RateBudget;
    /** The gateway shards this adapter holds (DISCORD_SHARDS); default one, 0 of 1. */
    shards?: DiscordShards;
    /** Told of REST calls and feedback votes (metrics). */
    observer?: BridgeObserver;
    /** The chatbot of a server with none bound (CHATBRIDGE_CHATBOT). */
    defaultChatbot?: string;
    /** Waits between tries of taking a message in while the store is down. */
    takeRetryMs?: readonly number[];
    /**
     * Runs on fake time (test/fake-time.ts) from the moment the adapter is connected, as
     * discord.js's throttler tests do: `rig.settle` moves it on. The connection itself runs on
     * the real clock (discord.js's gateway handshake has timeouts of its own).
     */
    fakeTime?: boolean;
    /** The proxy variables' values (HTTP_PROXY, NO_PROXY) REST calls go through. */
    proxy?: ProxySettings;
  } = {},
): Promise<Rig> {
  const fake = options.fake ?? (await new FakeDiscord().start());
  const state = options.state ?? (await openState('memory://'));
  const adapter = createDiscordAdapter(
    {
      token: TOKEN,
      apiUrl: fake.apiUrl,
      maxUploadBytes: options.maxUploadBytes ?? 1_000_000,
      messageContent: options.messageContent ?? 'auto',
      admins: options.admins ?? [],
      ...(options.shards ? { shards: options.shards } : {}),
      ...(options.proxy ? { proxy: options.proxy } : {}),
    },
    {
      conversation,
      state,
      client: options.client ?? ({} as ServiceClient),
      // DEBUG_DISCORD=1 shows the adapter's log while a test is being written.
      logger:
        options.logger ??
        (process.env.DEBUG_DISCORD ? createLogger({ level: 'debug' }) : silentLogger),
      // On fake time, Discord's own pace (the adapter's default); on the real clock, a short one.
      minUpdateMs: options.minUpdateMs ?? (options.fakeTime ? undefined : 50),
      // The adapter's clock: Date.now, faked along with the timers on fake time.
      now: () => Date.now(),
      ...(options.rateBudget ? { rateBudget: options.rateBudget } : {}),
      ...(options.observer ? { observer: options.observer } : {}),
      ...(options.defaultChatbot ? { defaultChatbot: options.defaultChatbot } : {}),
      ...(options.takeRetryMs ? { takeRetryMs: options.takeRetryMs } : {}),
    },
  );
  await adapter.start();
  // Imported only for fake time: it loads vitest, which the benchmarks (plain tsx) cannot.
  const time = options.fakeTime
    ? (await import('../fake-time.js')).useFakeTime(FAKE_STEP_MS)
    : undefined;
  return {
    fake,
    state,
    adapter,
    ...(time ? { time } : {}),
    settle: (promise) => (time ? time.settle(promise) : promise),
    async close() {
      // Answers still pacing finish on fake time; then the real clock is back for the rest.
      try {
        await (time ? time.settle(adapter.stop()) : adapter.stop());
      } finally {
        time?.restore();
      }
      await fake.close();
      await state.close();
    },
  };
}
