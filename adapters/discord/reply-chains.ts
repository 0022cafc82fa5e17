// Conversations answered as replies (no thread could be made) continue when someone replies to
// one of the bot's answer messages: this remembers which conversation each answer belongs to.
//
// Kept in process memory, deliberately: the StateStore has no generic key-value facility
// (sessions, bindings, sources, dedup and locks each mean something else), and a lost entry
// costs little. After a restart, or on another replica, a reply to an older answer needs a
// mention again, and then starts a new conversation.
import type { ThreadRef } from '../../src/bridge/types.js';

/** Enough for a busy server's recent answers; a few MB at most. */
export const REPLY_CHAIN_LIMIT = 10_000;

/** Bot answer message id → the conversation it answered, least recently used evicted first. */
export class ReplyChains {
  private readonly byAnswer = new Map<string, ThreadRef>();

  constructor(private readonly limit = REPLY_CHAIN_LIMIT) {}

  get size(): number {
    return this.byAnswer.size;
  }

  remember(answerMessageId: string, ref: ThreadRef): void {
    this.byAnswer.delete(answerMessageId);
    this.byAnswer.set(answerMessageId, ref);
    while (this.byAnswer.size > this.limit) {
      const oldest = this.byAnswer.keys().next();
      if (oldest.done) break;
      this.byAnswer.delete(oldest.value);
    }
  }

  /** The conversation a bot answer belongs to; undefined for any other message. */
  lookup(messageId: string | undefined): ThreadRef | undefined {
    if (messageId === undefined) return undefined;
    const ref = this.byAnswer.get(messageId);
    if (ref) {
      // Recently used chains stay.
      this.byAnswer.delete(messageId);
      this.byAnswer.set(messageId, ref);
    }
    return ref;
  }
}
