// Bridge bench: 1,000 concurrent conversations through the real engine and renderer, with a
// simulated reply surface (updates at most 1/s per message, each taking a few ms) and a fake
// service streaming a 1,500-char answer in 60 pieces over ~3 s. Real timers: a measurement.
//   lag      from a piece arriving to the surface showing it (update or finish resolved)
//   updates  open + update calls per answer
//   CPU      process.cpuUsage over the run / answers (engine, renderer, fakes, state)
//   RSS      peak resident set size sampled every 50 ms
import { createConversation } from '../src/bridge/engine.js';
import type { FinalContent, ReplyMessage, ReplyTarget } from '../src/bridge/types.js';
import type { AnswerStream, ServiceClient } from '../src/service/api.js';
import type { Chatbot, Message } from '../src/service/types.js';
import { openState } from '../src/state/index.js';
import { percentile, type BenchRow } from './table.js';

const CONVERSATIONS = 1_000;
const ANSWER_CHARS = 1_500;
const PIECES = 60;
const STREAM_MS = 3_000;
const UPDATE_MS = 4;

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function answerText(seed: number): string {
  const words = ['the', 'bridge', 'answers', 'each', 'thread', 'quickly', 'and', 'safely', 'with'];
  let text = '';
  for (let i = 0; text.length < ANSWER_CHARS; i++) {
    text += words[(i * 5 + seed) % words.length];
    text += i % 15 === 14 ? '.\n\n' : ' ';
  }
  return text.slice(0, ANSWER_CHARS);
}

/** What one conversation saw: when each piece arrived, and when how much was shown. */
interface Trace {
  arrivals: Array<{ at: number; length: number }>;
  shown: Array<{ at: number; length: number }>;
  calls: number;
}

const traces = new Map<string, Trace>();

/** Traces are keyed by the question, which both the fake service and the surface know. */
function traceOf(query: string): Trace {
  let trace = traces.get(query);
  if (!trace) traces.set(query, (trace = { arrivals: [], shown: [], calls: 0 }));
  return trace;
}

async function* pieces(query: string, text: string): AsyncGenerator<string> {
  const size = Math.ceil(text.length / PIECES);
  const trace = traceOf(query);
  for (let at = 0; at < text.length; at += size) {
    await delay(STREAM_MS / PIECES);
    trace.arrivals.push({ at: performance.now(), length: Math.min(text.length, at + size) });
    yield text.slice(at, at + size);
  }
}

function fakeClient(): ServiceClient {
  const bot: Chatbot = {
    uuid: 'bench-bot',
    name: 'bench',
    created_at: '',
    modified_at: '',
    meta: {
      rate_limit: [100, 1],
      rate_limit_message: '',
      show_citations: false,
      visibility: 'private',
    },
  };
  let next = 0;
  const answers = new Map<string, { query: string; response: string }>();
  const unused = () => Promise.reject(new Error('not used by the bench'));
  return {
    listChatbots: async () => [bot],
    createSession: async () => ({ uuid: `s${next++}`, created_at: '', modified_at: '' }),
    async streamMessage(session, input) {
      const response = answerText(Number(session.slice(1)));
      answers.set(session, { query: input.query, response });
      const iterator = pieces(input.query, response);
      let received = '';
      const stream: AnswerStream = {
        get received() {
          return received;
        },
        cancel: () => void iterator.return(undefined),
        async *[Symbol.asyncIterator]() {
          for await (const piece of iterator) {
            received += piece;
            yield piece;
          }
        },
      };
      return stream;
    },
    async listMessages(session) {
      const answer = answers.get(session)!;
      const message: Message = {
        uuid: `m-${session}`,
        ...answer,
        cite_data_json: '{}',
        cite_data: {},
        finish_reason: 'stop',
        meta_json: '{}',
        meta: {},
        created_at: '',
        modified_at: '',
      };
      return [message];
    },
    close: async () => {},
    createChatbot: unused,
    listAgents: unused,
    createAgent: unused,
    updateAgent: unused,
    addQaSource: unused,
    addUrlSource: unused,
    uploadSource: unused,
    renameSource: unused,
    listSourceTags: unused,
    createSourceTag: unused,
    updateSourceTag: unused,
  };
}

/** A surface that takes a few ms per call and records what it shows for the conversation. */
function surface(query: string): ReplyTarget {
  const messages: string[] = [];
  const trace = traceOf(query);
  const record = () => {
    trace.shown.push({ at: performance.now(), length: messages.join('').length });
  };
  return {
    limits: { maxChars: 2_000, minUpdateMs: 1_000, workingRefreshMs: 8_000 },
    showWorking: async () => {},
    stopWorking: async () => {},
    async openMessage(text) {
      await delay(UPDATE_MS);
      const index = messages.push(text) - 1;
      trace.calls += 1;
      record();
      const message: ReplyMessage = {
        async update(next) {
          await delay(UPDATE_MS);
          messages[index] = next;
          trace.calls += 1;
          record();
        },
        async finish(content: FinalContent) {
          await delay(UPDATE_MS);
          messages[index] = content.text;
          record();
        },
      };
      return message;
    },
  };
}

function lags(trace: Trace): number[] {
  const out: number[] = [];
  let shownIndex = 0;
  for (const arrival of trace.arrivals) {
    while (shownIndex < trace.shown.length) {
      const shown = trace.shown[shownIndex]!;
      if (shown.at >= arrival.at && shown.length >= arrival.length) break;
      shownIndex += 1;
    }
    const shown = trace.shown[shownIndex];
    if (shown) out.push(shown.at - arrival.at);
  }
  return out;
}

export async function run(): Promise<BenchRow[]> {
  traces.clear();
  const state = await openState('memory://', { maxConcurrent: CONVERSATIONS });
  const client = fakeClient();
  const conversation = createConversation({
    client,
    state,
    defaultChatbot: 'bench-bot',
    maxConcurrentStreams: CONVERSATIONS,
  });
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONVERSATIONS }, async (_, i) => {
      const text = `question ${i}`;
      await conversation.handle(
        {
          platform: 'bench',
          workspace: 'w',
          channel: 'c',
          thread: `t${i}`,
          messageId: `m${i}`,
          userId: 'u',
          userName: 'user',
          text,
        },
        surface(text),
      );
    }),
  );
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  await state.close();

  const allLags = [...traces.values()].flatMap(lags);
  const calls = [...traces.values()].map((t) => t.calls);
  const p95 = percentile(allLags, 95);
  const cpuMs = (cpu.user + cpu.system) / 1000 / CONVERSATIONS;
  const rssMb = peakRss / 1024 / 1024;
  const area = 'bridge';
  const setup = `${CONVERSATIONS} concurrent, ${ANSWER_CHARS} chars in ${PIECES} pieces over ${STREAM_MS / 1000} s`;
  return [
    {
      area,
      metric: `p95 lag chunk → shown (${setup})`,
      value: `${(p95 / 1000).toFixed(2)} s (p50 ${(percentile(allLags, 50) / 1000).toFixed(2)} s, ${allLags.length} chunks)`,
      target: '<= 1.5 s',
      ok: p95 <= 1500,
    },
    {
      area,
      metric: 'updates per answer (open + update, 1/s cap)',
      value: `${(calls.reduce((a, b) => a + b, 0) / calls.length).toFixed(1)} (max ${Math.max(...calls)})`,
      target: '',
    },
    { area, metric: 'CPU per answer', value: `${cpuMs.toFixed(2)} ms`, target: '' },
    {
      area,
      metric: 'peak RSS',
      value: `${rssMb.toFixed(0)} MB (wall ${(wallMs / 1000).toFixed(1)} s)`,
      target: '<= 300 MB',
      ok: rssMb <= 300,
    },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { formatTable } = await import('./table.js');
  console.log(formatTable(await run()));
}
