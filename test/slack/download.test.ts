// A Slack file download that stalls (a hung proxy or file host) ends as a SlackFileError that
// says so, not a wait without end.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadSlackFile, SlackFileError } from '../../adapters/slack/download.js';

const stalled = new Set<ServerResponse>();
const server = createServer((_req, res) => {
  // Headers and a first byte, then nothing.
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.write('R');
  stalled.add(res);
});
let origin: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const res of stalled) res.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('downloadSlackFile', () => {
  it('ends a stalled download after its time limit, saying so', async () => {
    const failed = await downloadSlackFile(`${origin}/files/F1/a.txt`, {
      botToken: 'xoxb-test',
      apiUrl: `${origin}/api/`,
      maxBytes: 1024,
      timeoutMs: 50,
    }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(SlackFileError);
    expect((failed as SlackFileError).message).toBe(
      'Downloading the file from Slack did not finish within 0.05 s.',
    );
  });
});
