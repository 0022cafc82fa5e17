// Durable intake, platform-neutral: an adapter keeps each event it will answer (state.intake)
// before the platform is told it arrived, runs the answer as a job that records how far it got,
// and finishes the event when the answer is final. Every replica sweeps its platform's queue for
// events whose holder died (lease run out) and hands them back to its adapter, which answers
// them as a takeover. A store without an intake queue (test doubles) falls back to the dedup
// claim: events are then answered once, but not kept.
import { CodedError, ErrorCode } from '../errors.js';
import type { Logger } from '../log.js';
import type { IntakeQueue, KeptEvent, StateStore } from '../state/types.js';
import { systemClock, type Clock, type TimerHandle } from './clock.js';
import type { AnswerJob, AnswerProgress } from './types.js';

/** The event could not be kept: the platform must not be told it arrived (it then retries). */
export class IntakeUnavailableError extends CodedError {
  constructor(cause: unknown) {
    super(ErrorCode.IntakeUnavailable, 'the event could not be kept: the store is unreachable', {
      cause,
    });
  }
}

export function isIntakeUnavailable(error: unknown): boolean {
  return error instanceof CodedError && error.code === ErrorCode.IntakeUnavailable;
}

/** One kept event's answer: the job the engine records into, and the end of the event. */
export interface KeptWork {
  readonly job: AnswerJob;
  /** A takeover: how many times the event was taken before (1 for the replica that kept it). */
  readonly deliveries: number;
  /** The answer is final (or there is none to give): the event leaves the queue. Never rejects. */
  finish(): Promise<void>;
}

export interface IntakeOptions {
  /** The platform: the queue's name, and the first segment of every key. */
  platform: string;
  state: StateStore;
  log: Logger;
  clock?: Clock;
  /** How long a redelivery is dropped when the store has no intake queue (its dedup claim). */
  dedupTtlMs: number;
  /**
   * How often a replica looks for events to take over; a quarter of the lease by default, so a
   * dead holder's event is taken at most a quarter lease after its lease ran out, and a live
   * replica, which notes each sweep as its sign of life for hand-offs, may run three quarters
   * of a lease late before a stopping one stops counting on it.
   */
  sweepMs?: number;
  /** An event taken this many times is given up (it keeps killing whoever answers it). */
  maxDeliveries?: number;
}

/** Waits between tries of a finish the store refused (it stays held and renewed meanwhile). */
const FINISH_RETRY_MS = [100, 500, 1_000, 2_000, 5_000] as const;
const SWEEP_BATCH = 20;

export class Intake<P> {
  private readonly queue: IntakeQueue | undefined;
  private readonly clock: Clock;
  private sweeper: TimerHandle | undefined;
  private sweeping = false;
  private stopped = false;

  constructor(private readonly options: IntakeOptions) {
    this.queue = options.state.intake?.queue(options.platform);
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Keeps the event; undefined when it was kept before (a redelivery: whoever kept it answers).
   * Throws IntakeUnavailableError when the store cannot keep it.
   */
  async keep(key: string, payload: P): Promise<KeptWork | undefined> {
    const { queue } = this;
    try {
      if (!queue) {
        const first = await this.options.state.dedup.claim(key, this.options.dedupTtlMs);
        return first
          ? { job: { record: async () => {} }, deliveries: 1, finish: async () => {} }
          : undefined;
      }
      const kept = await queue.keep(key, JSON.stringify(payload));
      return kept ? this.work(queue, kept) : undefined;
    } catch (error) {
      throw new IntakeUnavailableError(error);
    }
  }

  /** Starts looking for events to take over; `resume` answers one (and must finish it). */
  start(resume: (payload: P, work: KeptWork) => Promise<void>): void {
    const { queue } = this;
    if (!queue || this.sweeper !== undefined || this.stopped) return;
    const lease = this.options.state.intake?.leaseMs ?? 15_000;
    const every = this.options.sweepMs ?? Math.max(10, Math.floor(lease / 4));
    const tick = () => {
      if (this.stopped) return;
      void this.sweep(queue, resume).finally(() => {
        if (!this.stopped) this.sweeper = this.schedule(tick, every);
      });
    };
    // The first sweep at once: a replica just started counts as live for hand-offs from now (a
    // rolling restart stops the old one right after the new one is up), and a restarted process
    // answers what ran out while it was down without waiting a period first.
    this.sweeper = this.schedule(tick, 0);
  }

  /** A sweep alone never keeps the process alive. */
  private schedule(tick: () => void, ms: number): TimerHandle {
    const handle = this.clock.setTimer(tick, ms);
    (handle as { unref?: () => void } | undefined)?.unref?.();
    return handle;
  }

  /** No more takeovers by this process. */
  stop(): void {
    this.stopped = true;
    if (this.sweeper !== undefined) this.clock.clearTimer(this.sweeper);
  }

  private async sweep(
    queue: IntakeQueue,
    resume: (payload: P, work: KeptWork) => Promise<void>,
  ): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = true;
    try {
      const taken = await queue.claimExpired(SWEEP_BATCH);
      for (const kept of taken) {
        const work = this.work(queue, kept);
        const max = this.options.maxDeliveries ?? 5;
        let payload: P;
        try {
          payload = JSON.parse(kept.payload) as P;
        } catch {
          payload = undefined as P;
        }
        if (kept.deliveries > max || payload === undefined) {
          this.options.log.error(
            { key: kept.key, deliveries: kept.deliveries },
            'intake: giving up an event',
          );
          await work.finish();
          continue;
        }
        this.options.log.warn(
          { key: kept.key, deliveries: kept.deliveries },
          'intake: taking over an event',
        );
        void resume(payload, work).catch((error: unknown) => {
          this.options.log.error({ err: error, key: kept.key }, 'intake: takeover failed');
        });
      }
    } catch (error) {
      this.options.log.warn({ err: error }, 'intake: looking for events to take over failed');
    } finally {
      this.sweeping = false;
    }
  }

  private work(queue: IntakeQueue, kept: KeptEvent): KeptWork {
    const { log } = this.options;
    // A takeover (taken more than once) carries what the dead holder recorded.
    const previous = kept.deliveries > 1 ? parseProgress(kept.note) : undefined;
    // It keeps what the question's answer needs; the messages it opens are its own.
    let progress: AnswerProgress = {
      ...(previous?.sessionUuid ? { sessionUuid: previous.sessionUuid } : {}),
      ...(previous?.query !== undefined ? { query: previous.query } : {}),
    };
    let writes = Promise.resolve();
    const job: AnswerJob = {
      ...(previous ? { previous } : {}),
      record: (update) => {
        progress = { ...progress, ...update };
        const note = JSON.stringify(progress);
        // In order: a later note never lands before an earlier one.
        writes = writes.then(() =>
          queue.note(kept.id, note).catch((error: unknown) => {
            log.warn({ err: error, key: kept.key }, 'intake: recording progress failed');
          }),
        );
        return writes;
      },
      canHandOff: () =>
        queue.canHandOff().catch((error: unknown) => {
          log.warn({ err: error, key: kept.key }, 'intake: could not tell who takes over');
          return false;
        }),
      handOff: async () => {
        handedOff = true;
        await writes;
        // Not released (the store refused): the lease still runs out, a takeover only later.
        await queue.release(kept.id).catch((error: unknown) => {
          log.warn({ err: error, key: kept.key }, 'intake: releasing an event failed');
        });
        log.info({ key: kept.key }, 'intake: event left for another process to answer');
      },
    };
    let finished: Promise<void> | undefined;
    let handedOff = false;
    return {
      job,
      deliveries: kept.deliveries,
      finish: () =>
        (finished ??= handedOff
          ? Promise.resolve()
          : writes.then(() => this.finishKept(queue, kept))),
    };
  }

  /** Retries while the store refuses: until it succeeds the entry stays held (and renewed). */
  private async finishKept(queue: IntakeQueue, kept: KeptEvent): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await queue.finish(kept.id);
        return;
      } catch (error) {
        if (this.stopped && attempt >= FINISH_RETRY_MS.length) {
          this.options.log.error(
            { err: error, key: kept.key },
            'intake: could not finish an event',
          );
          return;
        }
        const wait = FINISH_RETRY_MS[Math.min(attempt, FINISH_RETRY_MS.length - 1)]!;
        await new Promise<void>((resolve) => this.clock.setTimer(resolve, wait));
      }
    }
  }
}

function parseProgress(note: string | undefined): AnswerProgress {
  if (note === undefined) return {};
  try {
    const parsed = JSON.parse(note) as AnswerProgress;
    return typeof parsed === 'object' && parsed !== null ? parsed : {};
  } catch {
    return {};
  }
}

/** What a person is told when their question could not be taken in (the store stayed down). */
export const NOT_TAKEN_TEXT =
  'I could not take your question just now (my storage is unreachable). Please send it again in a minute.';
/**
 * Waits between tries of taking in an event the platform never delivers again (Discord's
 * gateway): about eight seconds in all, in memory, before the person is told.
 */
export const TAKE_RETRY_MS: readonly number[] = [250, 500, 1_000, 2_000, 4_000];

/** Runs `attempt`, trying again after each of `delaysMs` while it throws; then throws the last. */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  clock: Pick<Clock, 'setTimer'> = systemClock,
  delaysMs: readonly number[] = TAKE_RETRY_MS,
): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= delaysMs.length) throw error;
      await new Promise<void>((resolve) => clock.setTimer(resolve, delaysMs[i]!));
    }
  }
}
