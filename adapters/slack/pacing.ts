// Per-workspace pacing of Web API calls under Slack's rate-limit tiers (limits.ts, as data), so
// that our own pacing, not Slack's 429s, decides when a call goes out. One token bucket per
// workspace and method (and per channel for the "special" methods Slack counts per channel) in a
// rate budget: this process's own, or the state store's (shared by every replica on Redis, so
// two replicas together stay within the workspace's tier), plus a "blocked until" per workspace
// and method from the last Retry-After.
import {
  LocalRateBudget,
  takeWhenFree,
  type BucketShape,
  type RateBudget,
} from '../../src/state/rate-budget.js';
import { SLACK_RATES, type MethodRate } from './limits.js';

/** Calls per minute Slack allows per workspace, by method (limits.ts has the sources). */
export const METHOD_LIMITS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(SLACK_RATES).flatMap(([method, rate]) =>
    rate.perMinute === undefined ? [] : [[method, rate.perMinute]],
  ),
);

/** Calls per minute Slack allows per channel, besides the workspace's tier ("special" methods). */
export const CHANNEL_LIMITS: Readonly<Record<string, number>> = Object.fromEntries(
  Object.entries(SLACK_RATES).flatMap(([method, rate]) =>
    rate.perChannelPerMinute === undefined ? [] : [[method, rate.perChannelPerMinute]],
  ),
);

/**
 * Which share of a method's budget a call spends (limits.ts `liveShare`): "live" for calls the
 * caller may skip when no token is free (updates), "final" for those that must go out.
 */
export type Lane = 'live' | 'final';

export interface PacerOptions {
  /** Calls per minute by method; methods not listed are not paced. */
  limits?: Readonly<Record<string, number>>;
  /** Per-channel limits and lane shares by method; Slack's (limits.ts) by default. */
  rates?: Readonly<Record<string, MethodRate>>;
  /** Length of the window the limits count over; Slack's is a minute (benchmarks compress it). */
  windowMs?: number;
  now?: () => number;
  /** Where the buckets live; this process's own (on `now`) by default. */
  budget?: RateBudget;
}

/**
 * A bucket of capacity C refilled at r per second lets at most C + 60·r calls through in any
 * minute: C is a quarter of the limit (bursts, such as first words; more where Slack grants
 * "generous" bursts, limits.ts `burst`), the rest refills.
 */
export class Pacer {
  private readonly limits: Readonly<Record<string, number>>;
  private readonly rates: Readonly<Record<string, MethodRate>>;
  private readonly windowMs: number;
  private readonly budget: RateBudget;

  constructor(options: PacerOptions = {}) {
    this.limits = options.limits ?? METHOD_LIMITS;
    this.rates = options.rates ?? SLACK_RATES;
    this.windowMs = options.windowMs ?? 60_000;
    this.budget = options.budget ?? new LocalRateBudget(options.now ?? Date.now);
  }

  /** The method's budget for one lane: all of it, or its live or final share. */
  private perMinute(method: string, lane: Lane): number | undefined {
    const perMinute = this.limits[method];
    const share = this.rates[method]?.liveShare;
    if (perMinute === undefined || share === undefined) return perMinute;
    return perMinute * (lane === 'live' ? share : 1 - share);
  }

  private shape(method: string, lane: Lane): BucketShape | undefined {
    const perMinute = this.perMinute(method, lane);
    if (perMinute === undefined) return undefined;
    const capacity = Math.max(1, Math.floor(perMinute * (this.rates[method]?.burst ?? 0.25)));
    // 5% headroom keeps float rounding and clock skew with the server on the safe side.
    const refillPerMs = (Math.max(0, perMinute - capacity) * 0.95) / this.windowMs;
    return { capacity, refillPerMs };
  }

  /** A channel's own bucket for the method: two at once, then its rate (5% under). */
  private channelShape(method: string): BucketShape | undefined {
    const perMinute = this.rates[method]?.perChannelPerMinute;
    if (perMinute === undefined) return undefined;
    // Benchmarks compress the window; a channel's minute shrinks with it.
    return { capacity: 2, refillPerMs: (perMinute * 0.95) / this.windowMs };
  }

  private key(workspace: string, method: string, lane: Lane = 'final'): string {
    const split = lane === 'live' && this.rates[method]?.liveShare !== undefined;
    return `slack:${workspace}:${method}${split ? ':live' : ''}`;
  }

  /** Takes a token if one is available now (0); otherwise the ms until one is. */
  async tryTake(
    workspace: string,
    method: string,
    channel?: string,
    lane: Lane = 'final',
  ): Promise<number> {
    const perChannel = channel === undefined ? undefined : this.channelShape(method);
    if (perChannel) {
      const wait = await this.budget.take(`${this.key(workspace, method)}:${channel}`, perChannel);
      if (wait > 0) return wait;
    }
    const shape = this.shape(method, lane);
    return shape ? this.budget.take(this.key(workspace, method, lane), shape) : 0;
  }

  /** Waits for a token (the channel's first, where the method has one), then takes it. */
  async take(
    workspace: string,
    method: string,
    signal?: AbortSignal,
    channel?: string,
    lane: Lane = 'final',
  ): Promise<void> {
    const perChannel = channel === undefined ? undefined : this.channelShape(method);
    if (perChannel) {
      const key = `${this.key(workspace, method)}:${channel}`;
      await takeWhenFree(this.budget, key, perChannel, signal);
    }
    const shape = this.shape(method, lane);
    if (shape) await takeWhenFree(this.budget, this.key(workspace, method, lane), shape, signal);
  }

  /** Slack answered 429: nothing of this method goes out before Retry-After has passed. */
  async block(workspace: string, method: string, retryAfterMs: number): Promise<void> {
    const lanes: Lane[] =
      this.rates[method]?.liveShare === undefined ? ['final'] : ['final', 'live'];
    for (const lane of lanes) {
      const shape = this.shape(method, lane);
      if (shape) await this.budget.block(this.key(workspace, method, lane), shape, retryAfterMs);
    }
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
