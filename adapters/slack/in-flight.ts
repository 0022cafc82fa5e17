// The answers in progress: each event's work is tracked (its failure logged, never thrown at
// Bolt), so shutdown and tests can wait until none is left.
import type { Logger } from '../../src/log.js';

export class InFlight {
  readonly #jobs = new Set<Promise<unknown>>();

  constructor(private readonly logger: Logger) {}

  get size(): number {
    return this.#jobs.size;
  }

  readonly track = (job: Promise<unknown>): void => {
    const tracked = job.catch((caught) =>
      this.logger.error({ err: caught }, 'slack: event failed'),
    );
    this.#jobs.add(tracked);
    void tracked.finally(() => this.#jobs.delete(tracked));
  };

  readonly idle = async (): Promise<void> => {
    while (this.#jobs.size > 0) await Promise.allSettled([...this.#jobs]);
  };
}
