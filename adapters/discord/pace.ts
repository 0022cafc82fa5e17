// Per-channel pacing of message edits. Discord limits edits per channel (a bucket shared by
// every message in it), so the interval a message may be edited at depends on how many answers
// stream in that channel right now and on what Discord last said (429 retry_after, the REST
// `rateLimited` event). The renderer reads the interval through ReplyTarget.limits.minUpdateMs
// before every update, so a widened pace applies to the very next edit.

export interface ChannelPaceOptions {
  /** Interval for one answer in a quiet channel. */
  baseMs?: number;
  /** Never slower than this, however often Discord complained. */
  maxMs?: number;
  /** After this long without a rate limit, a widened pace halves back towards the base. */
  decayMs?: number;
  now?: () => number;
}

interface ChannelState {
  active: number;
  widenedMs: number;
  lastLimitedAt: number;
}

export class ChannelPace {
  readonly baseMs: number;
  private readonly maxMs: number;
  private readonly decayMs: number;
  private readonly now: () => number;
  private readonly channels = new Map<string, ChannelState>();

  constructor(options: ChannelPaceOptions = {}) {
    this.baseMs = options.baseMs ?? 1000;
    this.maxMs = options.maxMs ?? 10_000;
    this.decayMs = options.decayMs ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  private state(channelId: string): ChannelState {
    let state = this.channels.get(channelId);
    if (!state) {
      state = { active: 0, widenedMs: 0, lastLimitedAt: 0 };
      this.channels.set(channelId, state);
    }
    return state;
  }

  /** An answer started streaming in the channel; the returned function ends it. */
  open(channelId: string): () => void {
    const state = this.state(channelId);
    state.active += 1;
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      state.active -= 1;
      this.forgetIfIdle(channelId, state);
    };
  }

  /** Discord said this channel is limited for retryAfterMs: widen its pace. */
  limited(channelId: string, retryAfterMs: number): void {
    const state = this.state(channelId);
    const doubled = Math.max(state.widenedMs, this.baseMs) * 2;
    state.widenedMs = Math.min(this.maxMs, Math.max(doubled, retryAfterMs));
    state.lastLimitedAt = this.now();
  }

  /** The least interval between two edits of one message in this channel, now. */
  intervalMs(channelId: string): number {
    const state = this.channels.get(channelId);
    if (!state) return this.baseMs;
    this.decay(state);
    // Discord allows about five edits per five seconds per channel: share them.
    const shared = this.baseMs * Math.max(1, state.active);
    return Math.min(this.maxMs, Math.max(shared, state.widenedMs));
  }

  private decay(state: ChannelState): void {
    if (state.widenedMs === 0) return;
    const quiet = this.now() - state.lastLimitedAt;
    if (quiet < this.decayMs) return;
    const halvings = Math.floor(quiet / this.decayMs);
    state.widenedMs = state.widenedMs / 2 ** halvings;
    state.lastLimitedAt += halvings * this.decayMs;
    if (state.widenedMs <= this.baseMs) state.widenedMs = 0;
  }

  private forgetIfIdle(channelId: string, state: ChannelState): void {
    this.decay(state);
    if (state.active <= 0 && state.widenedMs === 0) this.channels.delete(channelId);
  }
}
