// Waits for in-process loopback I/O to come to rest by turning the event loop (setImmediate), not
// by sleeping: a test's clients and servers share this process, so bytes one end writes are
// there for the other end at the next turn's poll, however busy the machine is. "At rest" is a
// few turns in a row in which no HTTP request, response or body chunk moved (undici's and
// node:http's diagnostics channels). A request still waiting for its response headers may have
// its server at work off the loop (a worker, libuv's thread pool): it gets a real pause too.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';

export interface IoWatch {
  /**
   * Resolves once loopback I/O is at rest: `quietTurns` event-loop turns in a row with nothing
   * moving. Requests still awaiting their headers then get `pauseMs` of real time (`pause`,
   * taken before timers were faked) for work off the loop, as every step had before.
   */
  atRest(pause: (ms: number) => Promise<unknown>): Promise<void>;
  stop(): void;
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Watches loopback HTTP from now until stop(). */
export function watchIo({ quietTurns = 3, pauseMs = 2, maxTurns = 1000 } = {}): IoWatch {
  let moves = 0;
  // Requests sent whose response headers have not come yet.
  const awaitingHeaders = new Set<object>();
  const moved = () => void moves++;
  const sent = ({ request }: { request: object }) => (moves++, void awaitingHeaders.add(request));
  const answered = ({ request }: { request: object }) => (
    moves++,
    void awaitingHeaders.delete(request)
  );
  const listeners: [string, (message: never) => void][] = [
    ['undici:request:create', sent],
    ['undici:request:headers', answered],
    ['undici:request:error', answered],
    ['undici:request:bodyChunkReceived', moved],
    ['undici:request:trailers', moved],
    ['http.client.request.start', sent],
    ['http.client.response.finish', answered],
    ['http.client.request.error', answered],
    ['http.server.request.start', moved],
    ['http.server.response.finish', moved],
  ];
  const each = (act: typeof subscribe) => {
    for (const [name, listener] of listeners) act(name, listener as (message: unknown) => void);
  };
  each(subscribe);
  return {
    async atRest(pause) {
      for (let quiet = 0, turns = 0; quiet < quietTurns && turns < maxTurns; turns++) {
        const before = moves;
        await turn();
        quiet = moves === before ? quiet + 1 : 0;
      }
      if (awaitingHeaders.size > 0) await pause(pauseMs);
    },
    stop: () => each(unsubscribe as typeof subscribe),
  };
}
