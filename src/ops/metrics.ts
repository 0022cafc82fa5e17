// The bridge's Prometheus metrics (prom-client), on a registry of its own so two bridges in one
// process (tests) never collide. Labels are closed sets: platform, outcome, API method, service
// endpoint and error code. No user text, ids or secrets ever become a label.
import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
  type LabelValues,
} from 'prom-client';
import type { AnswerOutcome, BridgeObserver, PlatformCallOutcome } from '../bridge/observer.js';

/** Seconds: first words are expected within a second, whole answers within a minute or two. */
const FIRST_WORDS_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30];
const ANSWER_BUCKETS = [0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300];

export interface BridgeMetricsOptions {
  /** Process metrics (CPU, memory, event loop lag, handles). Default true. */
  processMetrics?: boolean;
  /** Read at each scrape: messages waiting for their thread, answers streaming now. */
  activity?: () => { waiting: number; streaming: number };
}

export interface ServiceCallObserver {
  /** One call of the service client: `endpoint` is the client method, `code` 'ok' or an error kind. */
  serviceCall(endpoint: string, code: string, seconds: number): void;
}

export interface ConnectionState {
  platform: string;
  /** A closed set: "shard 1/2". */
  connection: string;
  ready: boolean;
}

export interface BridgeMetrics {
  readonly registry: Registry;
  readonly observer: Required<BridgeObserver>;
  readonly service: ServiceCallObserver;
  /** Later-known activity source (the engine is built after the metrics). */
  setActivity(activity: () => { waiting: number; streaming: number }): void;
  /** Read at each scrape: the platform connections held (Discord shards), ready or not. */
  setConnections(connections: () => ConnectionState[]): void;
  /** The text exposition for GET /metrics. */
  render(): Promise<string>;
  readonly contentType: string;
}

export function createBridgeMetrics(options: BridgeMetricsOptions = {}): BridgeMetrics {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry });
  let activity = options.activity;

  const answers = new Counter({
    name: 'chatbridge_answers_total',
    help: 'Answers that reached their final state, by platform and outcome.',
    labelNames: ['platform', 'outcome'] as const,
    registers: [registry],
  });
  const firstWords = new Histogram({
    name: 'chatbridge_first_words_seconds',
    help: 'From a message reaching the engine to the first words of its answer being visible.',
    labelNames: ['platform'] as const,
    buckets: FIRST_WORDS_BUCKETS,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'chatbridge_answer_duration_seconds',
    help: 'From a message reaching the engine to its answer reaching its final state.',
    labelNames: ['platform', 'outcome'] as const,
    buckets: ANSWER_BUCKETS,
    registers: [registry],
  });
  const platformCalls = new Counter({
    name: 'chatbridge_platform_api_calls_total',
    help: 'Slack and Discord API calls, by method and outcome (ok, rate_limited, error).',
    labelNames: ['platform', 'method', 'outcome'] as const,
    registers: [registry],
  });
  const platform429s = new Counter({
    name: 'chatbridge_platform_rate_limited_total',
    help: 'Slack and Discord API calls answered 429, by method.',
    labelNames: ['platform', 'method'] as const,
    registers: [registry],
  });
  const serviceCalls = new Counter({
    name: 'chatbridge_service_calls_total',
    help: 'Calls to the chatbot service, by endpoint and code (ok, or the error kind).',
    labelNames: ['endpoint', 'code'] as const,
    registers: [registry],
  });
  const serviceErrors = new Counter({
    name: 'chatbridge_service_errors_total',
    help: 'Failed calls to the chatbot service, by endpoint and error kind.',
    labelNames: ['endpoint', 'code'] as const,
    registers: [registry],
  });
  const serviceSeconds = new Histogram({
    name: 'chatbridge_service_call_seconds',
    help: 'Duration of calls to the chatbot service (a stream: until it closed).',
    labelNames: ['endpoint'] as const,
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const duplicates = new Counter({
    name: 'chatbridge_dedup_hits_total',
    help: 'Events delivered again (retries, replicas, reconnects) and not answered twice.',
    labelNames: ['platform'] as const,
    registers: [registry],
  });
  const feedbackVotes = new Counter({
    name: 'chatbridge_feedback_votes_total',
    help: 'Votes on answers recorded (a changed vote counts as its new value), by platform and vote (up, down).',
    labelNames: ['platform', 'vote'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'chatbridge_threads_waiting',
    help: 'Messages waiting for the earlier messages of their thread (per-thread queue).',
    registers: [registry],
    collect() {
      this.set(activity?.().waiting ?? 0);
    },
  });
  new Gauge({
    name: 'chatbridge_answers_streaming',
    help: 'Answers streaming from the chatbot service now.',
    registers: [registry],
    collect() {
      this.set(activity?.().streaming ?? 0);
    },
  });

  let connections: () => ConnectionState[] = () => [];
  new Gauge({
    name: 'chatbridge_platform_connection_ready',
    help: 'Platform connections this process holds (Discord gateway shards): 1 ready, 0 not.',
    labelNames: ['platform', 'connection'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { platform, connection, ready } of connections())
        this.set({ platform, connection }, ready ? 1 : 0);
    },
  });

  const observer: Required<BridgeObserver> = {
    answerFinished(platform: string, outcome: AnswerOutcome, durationMs: number) {
      answers.inc({ platform, outcome });
      duration.observe({ platform, outcome }, durationMs / 1000);
    },
    firstWords(platform: string, ms: number) {
      firstWords.observe({ platform }, ms / 1000);
    },
    platformCall(platform: string, method: string, outcome: PlatformCallOutcome) {
      const labels: LabelValues<'platform' | 'method'> = { platform, method };
      platformCalls.inc({ ...labels, outcome });
      if (outcome === 'rate_limited') platform429s.inc(labels);
    },
    duplicateEvent(platform: string) {
      duplicates.inc({ platform });
    },
    feedbackVote(platform: string, vote: 'up' | 'down') {
      feedbackVotes.inc({ platform, vote });
    },
  };

  return {
    registry,
    observer,
    service: {
      serviceCall(endpoint, code, seconds) {
        serviceCalls.inc({ endpoint, code });
        if (code !== 'ok') serviceErrors.inc({ endpoint, code });
        serviceSeconds.observe({ endpoint }, seconds);
      },
    },
    setActivity(next) {
      activity = next;
    },
    setConnections(next) {
      connections = next;
    },
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
