// What the engine and the adapters report as they work, for metrics (src/ops implements it with
// prom-client). Labels are closed sets: platform names, outcomes, API method names, never
// user text, ids or secrets. Every method is optional; the default observer ignores everything.

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
}

export const silentObserver: BridgeObserver = {};
