// Discord's rate limits as the fake enforces them when asked: 50 requests in any second per bot
// (a global 429 beyond), and per-channel buckets of 5 requests in any 5 seconds for creating
// messages, editing them and typing (the limits Discord reports for these routes). Successful
// responses carry the X-RateLimit headers discord.js paces itself by. Thread creation has no
// documented per-route limit, so only the global one applies to it here.
import type { FakeRequest } from './discord.js';

interface RouteLimit {
  method: string;
  pattern: RegExp;
  limit: number;
  windowMs: number;
}

const ROUTES: RouteLimit[] = [
  { method: 'POST', pattern: /^\/channels\/(\d+)\/messages$/, limit: 5, windowMs: 5000 },
  { method: 'PATCH', pattern: /^\/channels\/(\d+)\/messages\/\d+$/, limit: 5, windowMs: 5000 },
  { method: 'POST', pattern: /^\/channels\/(\d+)\/typing$/, limit: 5, windowMs: 5000 },
];

export const GLOBAL_LIMIT = 50;
const GLOBAL_WINDOW_MS = 1000;

export interface Verdict {
  /** Set when the request is refused: how long until it would pass. */
  retryAfterMs?: number;
  global: boolean;
  headers: Record<string, string>;
}

export class DiscordLimits {
  private readonly recent = new Map<string, number[]>();
  /** 429s answered, by kind. */
  globalRefusals = 0;
  routeRefusals = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  private window(key: string, windowMs: number): number[] {
    const now = this.now();
    const times = (this.recent.get(key) ?? []).filter((t) => now - t < windowMs);
    this.recent.set(key, times);
    return times;
  }

  /** Counts the request if it may pass; otherwise says how long until it would. */
  admit(request: Pick<FakeRequest, 'method' | 'path'>): Verdict {
    const now = this.now();
    const global = this.window('global', GLOBAL_WINDOW_MS);
    if (global.length >= GLOBAL_LIMIT) {
      this.globalRefusals += 1;
      const retryAfterMs = Math.max(1, Math.ceil(global[0]! + GLOBAL_WINDOW_MS - now));
      return { retryAfterMs, global: true, headers: { 'x-ratelimit-global': 'true' } };
    }
    const route = ROUTES.find((r) => r.method === request.method && r.pattern.test(request.path));
    if (route) {
      const channel = route.pattern.exec(request.path)![1]!;
      const bucket = `${route.method}:${route.pattern.source}`;
      const times = this.window(`${bucket}:${channel}`, route.windowMs);
      const headers = (remaining: number, resetMs: number) => ({
        'x-ratelimit-limit': String(route.limit),
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset-after': (resetMs / 1000).toFixed(3),
        'x-ratelimit-bucket': Buffer.from(bucket).toString('hex').slice(0, 16),
      });
      if (times.length >= route.limit) {
        this.routeRefusals += 1;
        const retryAfterMs = Math.max(1, Math.ceil(times[0]! + route.windowMs - now));
        return { retryAfterMs, global: false, headers: headers(0, retryAfterMs) };
      }
      times.push(now);
      global.push(now);
      const resetMs = times[0]! + route.windowMs - now;
      return { global: false, headers: headers(route.limit - times.length, resetMs) };
    }
    global.push(now);
    return { global: false, headers: {} };
  }
}
