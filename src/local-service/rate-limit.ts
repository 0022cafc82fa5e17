// The chatbot's rate_limit [count, seconds], counted per chatbot over a sliding window of the
// messages it accepted. Each accepted message is a row of rate_events, counted and added in one
// IMMEDIATE transaction, so the limit holds across a restart and across several processes on
// one file. A slot is given back when its message produced no answer.
import type { ServiceDb } from './db/open.js';
import { inTransaction } from '../sqlite.js';

export interface RateSlot {
  id: number;
  at: number;
}

export interface RateDecision {
  allowed: boolean;
  /** When refused: time until the oldest counted message leaves the window. */
  retryAfterMs: number;
  /**
   * When allowed: the counted message, to hand to release() if the message fails. Its time
   * too: a row id is used again once its row has left the window, so the id alone could name
   * a later message's row.
   */
  slot?: RateSlot;
}

export class SlidingWindowLimiter {
  private readonly q;

  constructor(
    private readonly now: () => number,
    private readonly db: ServiceDb,
  ) {
    const chatbot = '(SELECT id FROM chatbots WHERE uuid = ?)';
    this.q = {
      forget: db.prepare<[string, number]>(
        `DELETE FROM rate_events WHERE chatbot_id = ${chatbot} AND at <= ?`,
      ),
      counted: db.prepare<[string], { at: number }>(
        `SELECT at FROM rate_events WHERE chatbot_id = ${chatbot} ORDER BY at, id`,
      ),
      count: db.prepare<[number, string]>(
        `INSERT INTO rate_events (at, chatbot_id) SELECT ?, id FROM chatbots WHERE uuid = ?`,
      ),
      release: db.prepare<[number, number]>('DELETE FROM rate_events WHERE id = ? AND at = ?'),
    };
  }

  /** Counts the message when it is allowed; a refused message is not counted. */
  async take(chatbotUuid: string, limit: [number, number]): Promise<RateDecision> {
    const [count, seconds] = limit;
    const windowMs = seconds * 1000;
    return inTransaction(this.db, (): RateDecision => {
      const now = this.now();
      this.q.forget.run(chatbotUuid, now - windowMs);
      const recent = this.q.counted.all(chatbotUuid);
      if (recent.length >= count) {
        const oldest = recent[recent.length - count]!.at;
        return { allowed: false, retryAfterMs: Math.max(0, oldest + windowMs - now) };
      }
      const { lastInsertRowid } = this.q.count.run(now, chatbotUuid);
      return { allowed: true, retryAfterMs: 0, slot: { id: Number(lastInsertRowid), at: now } };
    });
  }

  /** Gives back a slot taken by take() (the message failed before any answer was written). */
  release(_chatbotUuid: string, slot: RateSlot | undefined): void {
    if (slot !== undefined) this.q.release.run(slot.id, slot.at);
  }
}
