// GET /readyz: 503 with a JSON body naming what is not ready and why; slow checks time out;
// a passed check is trusted for its cache time, a failed one is asked again.
import { afterEach, describe, expect, it } from 'vitest';
import { startOpsServer, type OpsServer } from '../../src/ops/http.js';
import { Readiness } from '../../src/ops/readiness.js';

let server: OpsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('readiness', () => {
  it('answers 503 naming the failed check, and 200 once it passes', async () => {
    const readiness = new Readiness({ timeoutMs: 50 });
    let storeUp = false;
    readiness.add('store', () => {
      if (!storeUp) throw new Error('connection refused');
    });
    readiness.add('service', () => new Promise(() => {})); // never answers
    server = await startOpsServer({ readiness }, { port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${server.port}/readyz`;
    let response = await fetch(url);
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({
      status: 'not ready',
      checks: { store: 'connection refused', service: 'no answer within 50 ms' },
    });
    storeUp = true;
    readiness.add('service', async () => undefined);
    response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ready',
      checks: { store: 'ok', service: 'ok' },
    });
    readiness.shutDown();
    response = await fetch(url);
    expect(response.status).toBe(503);
    expect(((await response.json()) as { checks: Record<string, string> }).checks.shutdown).toBe(
      'shutting down',
    );
    expect((await fetch(`http://127.0.0.1:${server.port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${server.port}/nope`)).status).toBe(404);
  });

  it('trusts a passed check for its cache time only', async () => {
    let now = 0;
    let calls = 0;
    const readiness = new Readiness({ now: () => now });
    readiness.add('service', () => void (calls += 1), { cacheMs: 1000 });
    await readiness.report();
    now = 999;
    await readiness.report();
    expect(calls).toBe(1);
    now = 1000;
    await readiness.report();
    expect(calls).toBe(2);
  });
});
