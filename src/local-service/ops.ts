// `chatbridge service`'s own operations surface: GET /healthz, /readyz, /metrics (no API key:
// they carry no data, and probes and Prometheus have no key), request and answer metrics, and
// the counters of knowledge ingestion. A registry per service, so several services in one
// process (tests, the embedded one) never collide. Labels are route templates, status codes,
// source types and file formats: never ids, user text or keys.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { Readiness } from '../ops/readiness.js';
import type { KnowledgePort } from './knowledge-port.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Served without an API key (health, readiness, metrics). */
    public?: boolean;
  }
}

export type IngestionOutcome = 'ok' | 'failed';

/** What ingestion code reports; small on purpose, so it is easy to call from wherever it runs. */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** A data source finished ingesting (type: qa, upload, url). */
  readonly ingestion: { inc(labels: { type: string; outcome: IngestionOutcome }): void };
  /** A file's text could not be extracted (format: pdf, docx, html, text, other). */
  readonly extractionFailures: { inc(labels: { format: string }): void };
}

export const STREAM_ROUTE = '/api/v1/session/:uuid/message/stream';

export function createServiceMetrics(options: { processMetrics?: boolean } = {}): ServiceMetrics {
  const registry = new Registry();
  if (options.processMetrics) collectDefaultMetrics({ register: registry });
  const ingestion = new Counter({
    name: 'chatbridge_service_ingestions_total',
    help: 'Data sources that finished ingesting, by type and outcome.',
    labelNames: ['type', 'outcome'] as const,
    registers: [registry],
  });
  const extractionFailures = new Counter({
    name: 'chatbridge_service_extraction_failures_total',
    help: 'Uploaded files whose text could not be extracted, by format.',
    labelNames: ['format'] as const,
    registers: [registry],
  });
  return { registry, ingestion, extractionFailures };
}

/** The format class of a file name, a closed set fit for a label. */
export function fileFormat(fileName: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase() ?? '';
  if (extension === 'pdf') return 'pdf';
  if (extension === 'docx') return 'docx';
  if (extension === 'html' || extension === 'htm') return 'html';
  if (['txt', 'md', 'markdown', 'csv', 'json'].includes(extension)) return 'text';
  return 'other';
}

/**
 * The knowledge side with failed extractions counted by file format (ingestion outcomes are
 * counted by the Ingestor, where a source is stored or fails).
 */
export function observeKnowledge(knowledge: KnowledgePort, metrics: ServiceMetrics): KnowledgePort {
  return {
    ...knowledge,
    answer: (request, signal) => knowledge.answer(request, signal),
    close: () => knowledge.close(),
    fetchUrl: (url, signal) => knowledge.fetchUrl(url, signal),
    async extractText(fileName, bytes, contentType) {
      try {
        return await knowledge.extractText(fileName, bytes, contentType);
      } catch (error) {
        metrics.extractionFailures.inc({ format: fileFormat(fileName) });
        throw error;
      }
    },
  };
}

export interface ServiceOps {
  readonly metrics: ServiceMetrics;
  readonly readiness: Readiness;
  /** Answers streaming now. */
  readonly streaming: number;
  /** Readiness turns false, then waits up to `limitMs` for answers streaming now to end. */
  drain(limitMs: number): Promise<void>;
}

/** How long `chatbridge service` waits for answers streaming when it is told to stop. */
export const SERVICE_DRAIN_MS = 10_000;

const routeOf = (request: FastifyRequest) => request.routeOptions.url ?? 'unmatched';

/**
 * Registers /healthz, /readyz and /metrics and the request metrics. `checkStore` throws when
 * the store does not answer.
 */
export function registerServiceOps(
  app: FastifyInstance,
  options: { metrics: ServiceMetrics; checkStore: () => Promise<unknown> },
): ServiceOps {
  const { metrics } = options;
  const registry = metrics.registry;
  const readiness = new Readiness();
  readiness.add('store', options.checkStore, { cacheMs: 0 });
  const requests = new Counter({
    name: 'chatbridge_service_requests_total',
    help: 'Requests by route template, method and status.',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const answerSeconds = new Histogram({
    name: 'chatbridge_service_answer_seconds',
    help: 'Duration of answer streams, from the request to the last byte.',
    labelNames: ['status'] as const,
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120],
    registers: [registry],
  });
  let streaming = 0;
  const counted = new WeakSet<FastifyRequest>();
  const idle = new Set<() => void>();
  app.addHook('onRequest', async (request: FastifyRequest) => {
    if (routeOf(request) !== STREAM_ROUTE) return;
    streaming += 1;
    counted.add(request);
  });
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = routeOf(request);
    if (route === '/metrics' || route === '/healthz' || route === '/readyz') return;
    const status = String(reply.statusCode);
    requests.inc({ route, method: request.method, status });
    if (!counted.delete(request)) return;
    answerSeconds.observe({ status }, reply.elapsedTime / 1000);
    streaming -= 1;
    if (streaming === 0) for (const resolve of idle) resolve();
  });
  const config = { public: true };
  app.get('/healthz', { config }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config }, async (_request, reply) => {
    const report = await readiness.report();
    return reply
      .code(report.ready ? 200 : 503)
      .send({ status: report.ready ? 'ready' : 'not ready', checks: report.checks });
  });
  app.get('/metrics', { config }, async (_request, reply) =>
    reply.header('content-type', registry.contentType).send(await registry.metrics()),
  );
  return {
    metrics,
    readiness,
    get streaming() {
      return streaming;
    },
    async drain(limitMs) {
      readiness.shutDown();
      if (streaming === 0) return;
      let timer: NodeJS.Timeout | undefined;
      let done!: () => void;
      await Promise.race([
        new Promise<void>((resolve) => {
          done = resolve;
          idle.add(done);
        }),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs))),
      ]);
      idle.delete(done);
      clearTimeout(timer);
    },
  };
}
