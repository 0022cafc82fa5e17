// Test files built in code: a PDF with one line of text, and a loopback web site.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildPdf } from './knowledge/fixtures.js';

/** A one-page PDF whose page shows `text` (built by the knowledge tests' fixture). */
export function minimalPdf(text: string): Buffer {
  return Buffer.from(buildPdf([text]));
}

export interface Site {
  url: string;
  /** Paths requested so far, in order. */
  hits: string[];
  close(): Promise<void>;
}

export type Route = (req: IncomingMessage, res: ServerResponse) => void;

/** A node:http server on 127.0.0.1 answering from a path → handler table (404 otherwise). */
export async function startSite(routes: Record<string, Route>): Promise<Site> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] as string;
    hits.push(path);
    const route = routes[path];
    if (route) return route(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const html =
  (body: string): Route =>
  (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  };
