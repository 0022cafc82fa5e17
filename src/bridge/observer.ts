// What the engine and the adapters report as they work, for metrics (src/ops implements it with
// prom-client). Labels are closed sets: platform names, outcomes, API method names, never
// user text, ids or secrets. Every method is optional; the default observer ignores everything.
import type { Notice, ReplyTarget } from './types.js';

/** How an answer ended, from the user's side. */
export type AnswerOutcome =
  | 'answered'
  | 'rate_limited'
  | 'service_error'
  | 'timed_out'
  | 'cut_off'
  | 'not_configured'
  | 'error';

/** How one platform API call went. */
export type PlatformCallOutcome = 'ok' | 'rate_limited' | 'error';

export interface BridgeObserver {
  /** An answer reached its final state `durationMs` after its message reached the engine. */
  answerFinished?(platform: string, outcome: AnswerOutcome, durationMs: number): void;
  /** The first words of an answer became visible `ms` after its message reached the engine. */
  firstWords?(platform: string, ms: number): void;
  /** One platform API call; `method` is the API's own name (chat.update, PATCH /channels/:id/…). */
  platformCall?(platform: string, method: string, outcome: PlatformCallOutcome): void;
  /** An event was delivered again (retry, replica, reconnect) and was not answered twice. */
  duplicateEvent?(platform: string): void;
  /** A person's 👍 (up) or 👎 (down) on an answer was recorded, or changed to this. */
  feedbackVote?(platform: string, vote: 'up' | 'down'): void;
}

export const silentObserver: BridgeObserver = {};

/** The outcome an answer's final notice stands for. */
export function outcomeOf(notice: Notice | undefined): AnswerOutcome {
  switch (notice?.kind) {
    case undefined:
      return 'answered';
    case 'rate_limited':
      return 'rate_limited';
    case 'unavailable':
      return 'service_error';
    case 'timeout':
      return 'timed_out';
    case 'cut_off':
    case 'incomplete':
      return 'cut_off';
    case 'not_configured':
      return 'not_configured';
    default:
      return 'error';
  }
}

/**
 * A message whose words show later than it opens: one posted once, whole, when the answer is
 * final (Slack's busy-workspace mode). `shown` resolves when the post landed; never rejects.
 */
export interface ShownLater {
  readonly shown: Promise<void>;
}

function shownLater(message: object): Promise<void> | undefined {
  const shown = (message as Partial<ShownLater>).shown;
  return shown instanceof Promise ? shown : undefined;
}

/**
 * Calls `onFirst` when the target's first words are visible: when its first message opens, or,
 * for a message that shows later (ShownLater), when it landed, whichever is first. Every other
 * member of the target, optional ones included, passes through as it is.
 */
export function watchFirstWords(target: ReplyTarget, onFirst: () => void): ReplyTarget {
  let seen = false;
  const first = () => {
    if (seen) return;
    seen = true;
    onFirst();
  };
  const openMessage: ReplyTarget['openMessage'] = async (text) => {
    const message = await target.openMessage(text);
    const later = shownLater(message);
    if (later) void later.then(first);
    else first();
    return message;
  };
  return withOpenMessage(target, openMessage);
}

/**
 * The target with its openMessage replaced; every other member, optional ones included, stays
 * the adapter's own, bound to it.
 */
export function withOpenMessage(
  target: ReplyTarget,
  openMessage: ReplyTarget['openMessage'],
): ReplyTarget {
  return new Proxy(target, {
    get(inner, property) {
      if (property === 'openMessage') return openMessage;
      const value: unknown = Reflect.get(inner, property, inner);
      return typeof value === 'function' ? (value as () => unknown).bind(inner) : value;
    },
  });
}
