// GET /healthz, /readyz and /metrics: one request handler, mounted on the Slack receiver's own
// server when Slack runs in HTTP mode (one PORT), or served by a small server of its own.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readiness } from './readiness.js';

export interface OpsEndpoints {
  readiness: Readiness;
  /** The Prometheus text exposition and its content type. */
  metrics?: { render(): Promise<string>; contentType: string };
}

export const OPS_PATHS = ['/healthz', '/readyz', '/metrics'] as const;

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** Answers one of the ops paths; resolves false when the request is for something else. */
export function opsHandler(
  endpoints: OpsEndpoints,
): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  return async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (!(OPS_PATHS as readonly string[]).includes(path ?? '')) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' });
      res.end();
      return true;
    }
    try {
      if (path === '/healthz') {
        sendJson(res, 200, { status: 'ok' });
      } else if (path === '/readyz') {
        const report = await endpoints.readiness.report();
        sendJson(res, report.ready ? 200 : 503, {
          status: report.ready ? 'ready' : 'not ready',
          checks: report.checks,
        });
      } else if (endpoints.metrics) {
        const text = await endpoints.metrics.render();
        res.writeHead(200, { 'content-type': endpoints.metrics.contentType });
        res.end(text);
      } else {
        sendJson(res, 404, { error: 'metrics are not enabled' });
      }
    } catch (error) {
      sendJson(res, 500, { error: error instanceof Error ? error.message : String(error) });
    }
    return true;
  };
}

/** Bolt's customRoutes shape, so the Slack HTTP receiver serves the ops paths on its port. */
export function opsRoutes(endpoints: OpsEndpoints) {
  const handle = opsHandler(endpoints);
  return OPS_PATHS.map((path) => ({
    path,
    method: ['GET', 'HEAD'],
    handler: (req: IncomingMessage, res: ServerResponse) => void handle(req, res),
  }));
}

export interface OpsServer {
  readonly port: number;
  close(): Promise<void>;
}

/** A server of its own for the ops paths (Discord only, Slack Socket Mode, the service). */
export async function startOpsServer(
  endpoints: OpsEndpoints,
  listen: { port: number; host?: string },
): Promise<OpsServer> {
  const handle = opsHandler(endpoints);
  const server: Server = createServer((req, res) => {
    void handle(req, res).then((handled) => {
      if (handled) return;
      sendJson(res, 404, { error: `no such path; try ${OPS_PATHS.join(', ')}` });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
