// thread → session and place → chatbot binding: plain keyv namespaces.
import type { Keyv } from 'keyv';
import type { BindingMap, SessionMap, SessionRef } from './types.js';

function checkKey(what: string, key: string): void {
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
