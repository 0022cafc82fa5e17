// Readiness: the named checks a load balancer or orchestrator asks about through GET /readyz.
// Each check is run with a time limit; a check that passed recently is not run again, so a
// probe every second does not become a call per second to the chatbot service.

/** Throws (or rejects) with a short reason when the dependency is not ready. */
export type ReadinessCheck = () => unknown;

export interface ReadinessReport {
  ready: boolean;
  /** Every check by name: "ok", or why not. */
  checks: Record<string, string>;
}

export interface ReadinessOptions {
  /** Longest a check may take before it counts as failed. Default 2 s. */
  timeoutMs?: number;
  /** How long a passed check is trusted without running it again. Default 5 s. */
  cacheMs?: number;
  now?: () => number;
}

export class Readiness {
  private readonly checks = new Map<string, { check: ReadinessCheck; cacheMs: number }>();
  private readonly passedAt = new Map<string, number>();
  private stopping = false;
  private readonly timeoutMs: number;
  private readonly cacheMs: number;
  private readonly now: () => number;

  constructor(options: ReadinessOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 2_000;
    this.cacheMs = options.cacheMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  /** Adds (or replaces) a named check; `cacheMs` overrides how long a pass is trusted. */
  add(name: string, check: ReadinessCheck, options: { cacheMs?: number } = {}): void {
    this.checks.set(name, { check, cacheMs: options.cacheMs ?? this.cacheMs });
    this.passedAt.delete(name);
  }

  /** From now on the process answers "not ready" (graceful shutdown starts here). */
  shutDown(): void {
    this.stopping = true;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  async report(): Promise<ReadinessReport> {
    const checks: Record<string, string> = {};
    if (this.stopping) checks.shutdown = 'shutting down';
    await Promise.all(
      [...this.checks].map(async ([name, { check, cacheMs }]) => {
        checks[name] = await this.run(name, check, cacheMs);
      }),
    );
    return { ready: Object.values(checks).every((v) => v === 'ok'), checks };
  }

  private async run(name: string, check: ReadinessCheck, cacheMs: number): Promise<string> {
    const passed = this.passedAt.get(name);
    if (passed !== undefined && this.now() - passed < cacheMs) return 'ok';
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.resolve().then(check),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${this.timeoutMs} ms`)),
            this.timeoutMs,
          );
        }),
      ]);
      this.passedAt.set(name, this.now());
      return 'ok';
    } catch (error) {
      this.passedAt.delete(name);
      return error instanceof Error ? error.message : String(error);
    } finally {
      clearTimeout(timer);
    }
  }
}
