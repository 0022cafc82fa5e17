// The fake-time harness must leave undici's timeouts working for the files after it (they
// share a worker): a connect timeout made after restore() fires on the real clock. And a real
// timer made before it must still be cleared under it, as a library's keep-alive timer is.
import { createServer } from 'node:net';
import { Agent, request } from 'undici';
import { expect, it } from 'vitest';
import { useFakeTime } from './fake-time.js';

it("leaves undici's connect timeouts firing after restore()", { timeout: 15_000 }, async () => {
  // Accepts TCP, never speaks TLS: only the connect timeout ends a request to it.
  const server = createServer((socket) => socket.resume());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const ask = () =>
    request(`https://127.0.0.1:${port}`, { dispatcher: new Agent({ connectTimeout: 100 }) }).then(
      () => 'answered',
      (error: Error) => error.message,
    );
  try {
    const time = useFakeTime();
    expect(await time.settle(ask())).toMatch(/timeout/i);
    time.restore();
    expect(await ask()).toMatch(/timeout/i);
  } finally {
    server.close();
  }
});

it('clears, under fake time, a real timer made before it', async () => {
  let fired = false;
  const early = setTimeout(() => (fired = true), 20);
  const time = useFakeTime();
  try {
    clearTimeout(early);
  } finally {
    time.restore();
  }
  // A real timer due after the cleared one: by then the cleared one would have fired.
  await new Promise((resolve) => setTimeout(resolve, 60));
  expect(fired).toBe(false);
});
