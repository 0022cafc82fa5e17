// The local service: Fastify serving the 15 endpoints of the chatbot service interface, with
// storage in SQLite (db/), startable in-process on a free loopback port.
import { AjvCompiler } from '@fastify/ajv-compiler';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { silentLogger } from '../log.js';
import { openServiceDb, type ServiceDb, serviceDbLocation } from './db/open.js';
import { KeyRing } from './auth.js';
import { type ChatDeps, delayPacer } from './chat.js';
import { HttpError, toErrorResponse } from './http-errors.js';
import { Ingestor } from './ingest.js';
import { checkJsonDepth } from './json-depth.js';
import { createDefaultKnowledge } from './knowledge-default.js';
import { createKnowledgeIndex } from './knowledge/search-index.js';
import { semanticIndexOf } from './knowledge/semantic-index.js';
import type { KnowledgePort } from './knowledge-port.js';
import { DEFAULTS, type FaultOptions, type LocalServiceOptions } from './options.js';
import {
  createServiceMetrics,
  observeKnowledge,
  registerServiceOps,
  type ServiceOps,
} from './ops.js';
import { SlidingWindowLimiter } from './rate-limit.js';
import { isSchemaFailure, schemaFailureToError } from './schema-errors.js';
import { AJV_OPTIONS } from './routes/schemas.js';
import { Repository } from './repository.js';
import { agentRoutes } from './routes/agents.js';
import { chatbotRoutes } from './routes/chatbots.js';
import type { RouteContext } from './routes/context.js';
import { sessionRoutes } from './routes/sessions.js';
import { sourceRoutes } from './routes/sources.js';
import { tagRoutes } from './routes/tags.js';

// One validator builder for every service this process starts: the route schemas are the same
// objects each time, and the builder's Ajv compiles each once (its cache is keyed on the schema)
// instead of once per start (Fastify's default builds a fresh Ajv per instance: ~0.1 s of code
// generation a start, most of a test file's set-up).
const sharedValidators = AjvCompiler();

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route reads a multipart form itself (uploads); every other route refuses one. */
    multipart?: boolean;
  }
}

export interface LocalService {
  /** Base address, e.g. http://127.0.0.1:40123 (paths add /api/v1/…). */
  url: string;
  port: number;
  host: string;
  /** The store URL (sqlite:// with its full path, or memory://). */
  store: string;
  /** Changes fault injection while running (tests, demos). */
  setFaults(faults: FaultOptions): void;
  /** Resolves when every background URL fetch (and embedding) started so far has finished. */
  drain(): Promise<void>;
  /** Stops listening, ends open streams, closes the store. */
  close(): Promise<void>;
  /** The Fastify instance (for inject() in tests). */
  app: FastifyInstance;
  /** Metrics, readiness and the drain of answers in progress (GET /healthz, /readyz, /metrics). */
  ops: ServiceOps;
}

function registerJsonParser(app: FastifyInstance): void {
  // Fastify's own parser (prototype-poisoning safe), except that an empty body is no body
  // (session/create takes an optional body and clients send none with a JSON content type),
  // and a body nesting deeper than MAX_JSON_DEPTH is refused before it is parsed.
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      checkJsonDepth(text, 'body');
    } catch (error) {
      return done(error as HttpError, undefined);
    }
    // Fastify's default JSON parser is synchronous; its type admits a promise.
    void parse(request, text, done);
  });
}

/** Records each route as it is added; answers which methods a concrete path has (for 405). */
function collectRoutes(app: FastifyInstance): (path: string) => string[] {
  const routes: { pattern: RegExp; method: string }[] = [];
  app.addHook('onRoute', (route) => {
    const source = route.url
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    for (const method of [route.method].flat())
      routes.push({ pattern: new RegExp(`^${source}$`), method });
  });
  return (path) => [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
}

/** Builds the knowledge side; a bad option must not leave the store it was given open. */
async function knowledgeOrClose(
  db: ServiceDb,
  build: () => Promise<KnowledgePort>,
): Promise<KnowledgePort> {
  try {
    return await build();
  } catch (error) {
    db.close();
    throw error;
  }
}

export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  const keys = new KeyRing(options.apiKeys);
  const now = options.now ?? Date.now;
  const logger = options.logger ?? silentLogger;
  const host = options.host ?? DEFAULTS.host;
  const maxUploadBytes = options.maxUploadBytes ?? DEFAULTS.maxUploadBytes;
  const bodyLimit = options.bodyLimit ?? DEFAULTS.bodyLimit;
  const storeUrl = options.storeUrl ?? DEFAULTS.storeUrl;
  const db = openServiceDb(storeUrl);
  const built =
    options.knowledge ??
    (await knowledgeOrClose(db, () =>
      createDefaultKnowledge({
        refusePrivateUrls: options.refusePrivateUrls ?? false,
        maxFetchBytes: options.maxFetchBytes ?? DEFAULTS.maxFetchBytes,
        fetchTimeoutMs: options.fetchTimeoutMs ?? DEFAULTS.fetchTimeoutMs,
        llm: options.llm,
        extraction: options.extraction,
        pool: options.extractionPool,
        maxTextBytes:
          options.extraction?.maxTextBytes ??
          Math.max(maxUploadBytes, options.maxFetchBytes ?? DEFAULTS.maxFetchBytes),
      }),
    ));
  const metrics = options.metrics ?? createServiceMetrics();
  const knowledge = observeKnowledge(built, metrics);
  const repo = new Repository(db);
  const ingestor = new Ingestor(repo, knowledge, now, logger, metrics.ingestion);
  const closing = new AbortController();
  let faults: FaultOptions = { ...(options.faults ?? {}) };
  const limiter = new SlidingWindowLimiter(now, db);
  const semantic = semanticIndexOf(db, options.embeddings, { logger, now });
  const chat: ChatDeps = {
    repo,
    index: createKnowledgeIndex(db, semantic),
    knowledge,
    limiter,
    now,
    pace: options.pacer ?? delayPacer(options.streamDelayMs ?? 0),
    faults: () => faults,
    signal: closing.signal,
    logger,
  };

  const app = Fastify({
    schemaController: { compilersFactory: { buildValidator: sharedValidators } },
    loggerInstance: logger as FastifyBaseLogger,
    // Per-request lines off: errors are logged by the error handler, without headers.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit,
    forceCloseConnections: true,
    requestTimeout: options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs,
    ajv: { customOptions: { ...AJV_OPTIONS } },
  });
  registerJsonParser(app);
  // Every JSON route takes application/json only: text/plain is refused with 415.
  app.removeContentTypeParser('text/plain');
  const allowedMethods = collectRoutes(app);
  await app.register(multipart, { limits: { fileSize: maxUploadBytes, files: 1 } });
  app.decorateRequest('owner', '');
  const ops = registerServiceOps(app, {
    metrics,
    checkStore: async () => db.prepare('SELECT 1').get(),
  });
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.public) return;
    request.owner = keys.authenticate(request.headers.authorization);
  });
  // Only the upload takes a form: elsewhere a multipart body would pass as no body at all.
  app.addHook('preValidation', async (request) => {
    if (request.isMultipart() && request.routeOptions.config.multipart !== true) {
      throw new HttpError(
        415,
        'unsupported_media_type',
        'Content-Type must be application/json (only uploads take multipart/form-data)',
      );
    }
  });
  app.setErrorHandler((error, request, reply) => {
    const known = isSchemaFailure(error)
      ? schemaFailureToError(error, {
          body: request.body,
          params: request.params,
          check: request.routeOptions.config.check,
        })
      : error;
    const response = toErrorResponse(known, { bodyLimit, maxUploadBytes });
    if (response.status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.code(response.status).headers(response.headers).send(response.body);
  });
  app.setNotFoundHandler((request) => {
    const path = request.url.split('?')[0] ?? '';
    const allow = allowedMethods(path);
    if (allow.length > 0) {
      throw new HttpError(
        405,
        'method_not_allowed',
        `method ${request.method} is not allowed on ${path}; allowed: ${allow.join(', ')}`,
        { headers: { allow: allow.join(', ') } },
      );
    }
    throw new HttpError(404, 'not_found', `no such endpoint: ${request.method} ${path}`);
  });

  const ctx: RouteContext = {
    repo,
    ingestor,
    chat,
    now,
    maxUploadBytes,
    uploadIdleTimeoutMs: options.uploadIdleTimeoutMs ?? DEFAULTS.uploadIdleTimeoutMs,
  };
  chatbotRoutes(app, ctx);
  agentRoutes(app, ctx);
  sourceRoutes(app, ctx);
  tagRoutes(app, ctx);
  sessionRoutes(app, ctx);

  try {
    await app.listen({ port: options.port ?? 0, host });
  } catch (error) {
    await semantic?.close();
    await knowledge.close();
    db.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  await ingestor.resume();
  semantic?.start();
  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    host,
    store: serviceDbLocation(storeUrl).display,
    app,
    ops,
    setFaults(next) {
      faults = { ...next };
    },
    async drain() {
      await ingestor.drain();
      await semantic?.settled();
    },
    close() {
      closed ??= (async () => {
        closing.abort(new Error('service closing'));
        await app.close();
        await ingestor.close();
        await semantic?.close();
        await knowledge.close();
        db.close();
      })();
      return closed;
    },
  };
}
