// Runs `chatbridge start` in-process for the start tests: with a given environment, stopped by an
// abort signal at the test's end, telling when its port listens and when every platform started.
import { afterEach } from 'vitest';
import { start } from '../../src/start.js';
import { createServiceClient } from '../../src/service/index.js';
import { API_KEY } from './scripted-service.js';

/** Clean-ups a test file runs after each test, last first. */
export type Cleanups = (() => Promise<void>)[];

/** A test file's clean-ups: each test's run after it, last registered first. */
export function cleanupsAfterEach(): Cleanups {
  const cleanups: Cleanups = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return cleanups;
}

/** Registers `resource` to be closed after the test; returns it. */
export function closing<T extends { close(): Promise<void> }>(cleanups: Cleanups, resource: T): T {
  cleanups.push(() => resource.close());
  return resource;
}

export interface RunningBridge {
  /** The port /healthz, /readyz and /metrics answer on. */
  port: number;
  /** Settles once every platform has started (its connection is up). */
  started: Promise<void>;
  /** Aborting it stops the bridge as SIGTERM would. */
  stop: AbortController;
}

/** The environment every start test shares: the local service, a memory store, any free port. */
export function serviceEnv(serviceUrl: string) {
  return {
    CHATBRIDGE_SERVICE_URL: serviceUrl,
    CHATBRIDGE_API_KEY: API_KEY,
    CHATBRIDGE_STORE: 'memory://',
    PORT: '0',
    LOG_LEVEL: 'silent',
  };
}

/** Runs start with `env` alone (no stop signal): for the settings that stop it at once. */
export function startWith(env: NodeJS.ProcessEnv): Promise<void> {
  return start({ env, stdin: process.stdin, stdout: process.stdout });
}

/** Starts the bridge; resolves once its port listens (rejects if start fails before that). */
export async function startBridge(
  env: NodeJS.ProcessEnv,
  cleanups: Cleanups,
): Promise<RunningBridge> {
  const stop = new AbortController();
  let started!: () => void;
  const allStarted = new Promise<void>((resolve) => (started = resolve));
  const port = await new Promise<number>((resolve, reject) => {
    const running = start({
      env,
      stdin: process.stdin,
      stdout: process.stdout,
      signal: stop.signal,
      onListening: resolve,
      onStarted: started,
    });
    running.catch(reject);
    cleanups.push(async () => {
      stop.abort();
      await running;
    });
  });
  return { port, started: allStarted, stop };
}

/** Creates a chatbot on the service; its uuid is CHATBRIDGE_CHATBOT for the bridge. */
export async function createChatbot(serviceUrl: string, name: string): Promise<string> {
  const client = createServiceClient({ baseUrl: serviceUrl, apiKey: API_KEY });
  try {
    return (await client.createChatbot({ name, rate_limit: [100, 1] })).uuid;
  } finally {
    await client.close();
  }
}

/** GETs a path of the bridge's ops port: its status, body and content type. */
export async function get(port: number, path: string) {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  const text = await response.text();
  return { status: response.status, text, type: response.headers.get('content-type') ?? '' };
}
