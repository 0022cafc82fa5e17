// Discord's rate limits as data, and the REST requests of discord.js paced by a rate budget
// before they go out: one global bucket per bot (Discord allows 50 requests a second), and the
// per-channel buckets of the routes an answer uses. The budget is the state store's, so on Redis
// every replica spends from the same buckets; discord.js's own header-based pacing stays behind
// it for everything else.
import { DefaultRestOptions, RateLimitError, type RESTOptions } from 'discord.js';
import type { BucketShape, RateBudget } from '../../src/state/types.js';
import { takeWhenFree } from '../../src/state/rate-budget.js';

/**
 * At most 45 requests in any second (Discord allows 50): 5 at once, then 40 a second. The 5 kept
 * back absorb the jitter between a token being taken and the request reaching Discord (queues,
 * network, a busy event loop): with several processes at the limit, requests taken over a little
 * more than a second can arrive within one.
 */
export const GLOBAL_BUCKET: BucketShape = { capacity: 5, refillPerMs: 40 / 1000 };
/** At most 5 in any 5 seconds per channel (message create, edit, typing): 1, then 0.8 a second. */
const CHANNEL_BUCKET: BucketShape = { capacity: 1, refillPerMs: 4 / 5000 };

interface RouteBudget {
  method: string;
  pattern: RegExp;
  /** Edits are better skipped than sent late (the renderer sends the latest text later). */
  whenEmpty: 'wait' | 'reject';
  route: string;
}

const ROUTES: RouteBudget[] = [
  {
    method: 'POST',
    pattern: /\/channels\/(\d+)\/messages$/,
    whenEmpty: 'wait',
    route: '/channels/:id/messages',
  },
  {
    method: 'PATCH',
    pattern: /\/channels\/(\d+)\/messages\/\d+$/,
    whenEmpty: 'reject',
    route: '/channels/:id/messages/:id',
  },
  {
    method: 'POST',
    pattern: /\/channels\/(\d+)\/typing$/,
    whenEmpty: 'reject',
    route: '/channels/:id/typing',
  },
];

type MakeRequest = RESTOptions['makeRequest'];

function refused(route: RouteBudget, channel: string, url: string, waitMs: number): Error {
  return new RateLimitError({
    timeToReset: waitMs,
    retryAfter: waitMs,
    limit: 5,
    method: route.method.toLowerCase(),
    hash: `chatbridge:${route.route}`,
    url,
    route: route.route,
    majorParameter: channel,
    global: false,
    sublimitTimeout: 0,
    scope: 'user',
  });
}

/**
 * discord.js's request function, paced by `budget`: per channel first (an edit with no token
 * left is refused at once, as discord.js refuses it), then the global bucket.
 */
export function pacedRequests(
  budget: RateBudget,
  botKey: string,
  send: MakeRequest = DefaultRestOptions.makeRequest,
): MakeRequest {
  return async (url, init) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const path = new URL(url).pathname;
    for (const route of ROUTES) {
      const channel = route.method === method ? route.pattern.exec(path)?.[1] : undefined;
      if (channel === undefined) continue;
      const key = `discord:${botKey}:${route.route}:${channel}`;
      if (route.whenEmpty === 'wait') {
        await takeWhenFree(budget, key, CHANNEL_BUCKET, init.signal ?? undefined);
      } else {
        const wait = await budget.take(key, CHANNEL_BUCKET);
        if (wait > 0) throw refused(route, channel, url, wait);
      }
      break;
    }
    await takeWhenFree(budget, `discord:${botKey}:global`, GLOBAL_BUCKET, init.signal ?? undefined);
    return send(url, init);
  };
}
