// thread → session, place → chatbot binding, message → conversation and workspace → thread-context
// setting: plain keyv namespaces.
import type { Keyv } from 'keyv';
import type {
  BindingMap,
  LinkedThread,
  ReplyLinkMap,
  SessionMap,
  SessionRef,
  ThreadContextSetting,
  ThreadContextSettings,
} from './types.js';

/** Store keys are non-empty strings (shared by every keyv map of this folder). */
export function checkKey(what: string, key: string): void {
  if (typeof key !== 'string' || key === '') {
    throw new Error(`${what}: must be a non-empty string`);
  }
}

export class KeyvSessionMap implements SessionMap {
  constructor(
    private readonly space: Keyv<SessionRef>,
    /** Clock for resetAt (ms since epoch). */
    private readonly now: () => number = Date.now,
  ) {}

  async get(threadKey: string): Promise<SessionRef | undefined> {
    checkKey('threadKey', threadKey);
    return (await this.space.get(threadKey)) ?? undefined;
  }

  async set(threadKey: string, ref: SessionRef): Promise<void> {
    checkKey('threadKey', threadKey);
    checkKey('sessionUuid', ref.sessionUuid);
    checkKey('chatbotUuid', ref.chatbotUuid);
    await this.space.set(threadKey, {
      sessionUuid: ref.sessionUuid,
      chatbotUuid: ref.chatbotUuid,
      createdAt: ref.createdAt,
    });
  }

  async reset(threadKey: string): Promise<void> {
    checkKey('threadKey', threadKey);
    const current = await this.space.get(threadKey);
    if (!current) return;
    // Keeps the entry (the thread stays known); only the live session goes.
    await this.space.set(threadKey, {
      sessionUuid: '',
      chatbotUuid: current.chatbotUuid,
      createdAt: current.createdAt,
      resetAt: new Date(this.now()).toISOString(),
    });
  }

  async delete(threadKey: string): Promise<void> {
    checkKey('threadKey', threadKey);
    await this.space.delete(threadKey);
  }
}

export class KeyvBindingMap implements BindingMap {
  constructor(private readonly space: Keyv<string>) {}

  async get(place: string): Promise<string | undefined> {
    checkKey('place', place);
    return (await this.space.get(place)) ?? undefined;
  }

  async set(place: string, chatbotUuid: string): Promise<void> {
    checkKey('place', place);
    checkKey('chatbotUuid', chatbotUuid);
    await this.space.set(place, chatbotUuid);
  }

  async delete(place: string): Promise<void> {
    checkKey('place', place);
    await this.space.delete(place);
  }
}

/** A link as stored: the conversation, and when it stops counting (ms since epoch). */
interface StoredLink extends LinkedThread {
  expiresAt: number;
}

const LINK_FIELDS = ['platform', 'workspace', 'channel', 'thread'] as const;

/**
 * Expiry follows the injected clock (the stored deadline), so it means the same on every store
 * and tests need not wait; keyv's own TTL, the same length, lets the store drop old rows.
 */
export class KeyvReplyLinkMap implements ReplyLinkMap {
  constructor(
    private readonly space: Keyv<StoredLink>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  async get(messageKey: string): Promise<LinkedThread | undefined> {
    checkKey('messageKey', messageKey);
    const stored = await this.space.get(messageKey);
    if (!stored || !(stored.expiresAt > this.now())) return undefined;
    const { platform, workspace, channel, thread } = stored;
    return { platform, workspace, channel, thread };
  }

  async set(messageKey: string, thread: LinkedThread): Promise<void> {
    checkKey('messageKey', messageKey);
    for (const field of LINK_FIELDS) checkKey(`thread.${field}`, thread[field]);
    const { platform, workspace, channel } = thread;
    const expiresAt = this.now() + this.ttlMs;
    await this.space.set(
      messageKey,
      { platform, workspace, channel, thread: thread.thread, expiresAt },
      this.ttlMs,
    );
  }
}

function checkBound(what: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
    throw new Error(`${what}: must be a whole number of at least 1, got ${String(value)}`);
  }
}

export class KeyvThreadContextSettings implements ThreadContextSettings {
  constructor(private readonly space: Keyv<ThreadContextSetting>) {}

  async get(workspace: string): Promise<ThreadContextSetting | undefined> {
    checkKey('workspace', workspace);
    return (await this.space.get(workspace)) ?? undefined;
  }

  async set(workspace: string, setting: ThreadContextSetting): Promise<void> {
    checkKey('workspace', workspace);
    if (typeof setting.enabled !== 'boolean') throw new Error('enabled: must be true or false');
    checkBound('maxMessages', setting.maxMessages);
    checkBound('maxChars', setting.maxChars);
    const { enabled, maxMessages, maxChars } = setting;
    await this.space.set(workspace, {
      enabled,
      ...(maxMessages === undefined ? {} : { maxMessages }),
      ...(maxChars === undefined ? {} : { maxChars }),
    });
  }
}
