// Service client benchmarks: the stream reader's throughput and the latency it adds, and 1,000
// answers streaming at once. The server side of the throughput runs is kept cheap on purpose
// (pre-built response bytes written to the raw socket in 64 KB batches) so that the figure
// measures the client: undici's HTTP parsing, our per-read grouping and the streaming UTF-8
// decode, and the async iterator.
import { createServer as createHttpServer, type ServerResponse } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import { Agent, type Dispatcher } from 'undici';
import { createServiceClient, DEFAULT_TIMEOUTS } from '../src/service/client.js';
import { CallScope } from '../src/service/scope.js';
import { TextBody } from '../src/service/stream.js';
import { percentile, type BenchRow } from './table.js';

const AREA = 'service client';
const ANSWER_BYTES = 10 * 1024 * 1024;

/** Mixed text: about 30% of its bytes belong to multi-byte characters (a stress case). */
const MIXED_WORDS = [
  'the ',
  'answer ',
  'is ',
  '42',
  '\n\n',
  ' ',
  'café ',
  '€ ',
  '日本 ',
  '👍 ',
  'stream, ',
];
/** English-like text as answers usually are: about 1% of bytes outside ASCII. */
const ENGLISH_WORDS = [
  'the ',
  'answer ',
  'is ',
  'in ',
  'your ',
  'sources ',
  'and ',
  'chatbridge ',
  'streams ',
  'it ',
  'to ',
  'Slack ',
  'or ',
  'Discord, ',
  'as ',
  'written. ',
  '42 ',
  '\n\n',
  '`npm test` ',
  'café — ',
];

/** ~10 MB of text from `words`, cut into random 1-200 byte pieces. */
function buildPieces(words: readonly string[] = MIXED_WORDS, seed = 42): Buffer[] {
  let state = seed;
  const random = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  const parts: string[] = [];
  let size = 0;
  while (size < ANSWER_BYTES) {
    const word = words[Math.floor(random() * words.length)]!;
    parts.push(word);
    size += Buffer.byteLength(word);
  }
  const all = Buffer.from(parts.join('')).subarray(0, ANSWER_BYTES);
  const pieces: Buffer[] = [];
  // Byte cuts: multi-byte characters are split across pieces, as networks do.
  for (let at = 0; at < all.length;) {
    const length = 1 + Math.floor(random() * 200);
    pieces.push(all.subarray(at, at + length));
    at += length;
  }
  return pieces;
}

/** The whole HTTP response as bytes: one chunked-encoding frame per piece, or unframed. */
function buildResponse(pieces: Buffer[], framing: 'chunked' | 'close'): Buffer {
  if (framing === 'close') {
    const head = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n';
    return Buffer.concat([Buffer.from(head), ...pieces]);
  }
  const head =
    'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n';
  const frames: Buffer[] = [Buffer.from(head)];
  for (const piece of pieces) {
    frames.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'));
  }
  frames.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(frames);
}

/**
 * A TCP server on its own thread (a real service is another party, not this event loop) that
 * reads the request head and writes the pre-built response in 64 KB batches.
 */
async function rawServer(
  response: Buffer,
): Promise<{ url: string; server: { close(): Promise<void> } }> {
  const worker = new Worker(RAW_SERVER_SOURCE, { eval: true, workerData: response });
  const port = await new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    server: { close: async () => void (await worker.terminate()) },
  };
}

const RAW_SERVER_SOURCE = `
const { createServer } = require('node:net');
const { parentPort, workerData } = require('node:worker_threads');
const response = Buffer.from(workerData.buffer, workerData.byteOffset, workerData.byteLength);
const server = createServer((socket) => {
  let head = '';
  socket.on('data', (data) => {
    head += data.toString('latin1');
    if (!head.includes('\\r\\n\\r\\n') || socket.writableLength > 0) return;
    for (let at = 0; at < response.length; at += 65536) socket.write(response.subarray(at, at + 65536));
    socket.end();
  });
  socket.on('error', () => {});
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
`;

/** MB/s over wall time, and MB per CPU-second of this process (less swayed by other load). */
interface Rate {
  wall: number;
  cpu: number;
}

const median = (runs: number[]) => [...runs].sort((a, b) => a - b)[Math.floor(runs.length / 2)]!;

/** Runs before the measured ones, so the JIT has compiled the hot path (as in a live process). */
const WARM_UP_RUNS = 2;
const MEASURED_RUNS = 9;

/** MB/s of UTF-8 bytes, from sending the request to the last piece; the text is checked. */
async function throughput(
  framing: 'chunked' | 'close',
  pieces: Buffer[],
  expected: string,
): Promise<Rate> {
  const { url, server } = await rawServer(buildResponse(pieces, framing));
  const client = createServiceClient({ baseUrl: url, apiKey: 'bench-key-0000' });
  const runs: number[] = [];
  const cpuRuns: number[] = [];
  for (let run = -WARM_UP_RUNS; run < MEASURED_RUNS; run++) {
    const cpu = process.cpuUsage();
    const start = performance.now();
    const stream = await client.streamMessage('bench', { query: 'q' });
    const out: string[] = [];
    for await (const piece of stream) out.push(piece);
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    if (out.join('') !== expected) throw new Error(`the ${framing} stream changed the text`);
    if (run < 0) continue;
    runs.push(ANSWER_BYTES / 1024 / 1024 / seconds);
    cpuRuns.push(ANSWER_BYTES / 1024 / 1024 / ((used.user + used.system) / 1e6));
  }
  await client.close();
  await server.close();
  return { wall: median(runs), cpu: median(cpuRuns) };
}

/**
 * The client's reader alone, fed from memory as undici feeds it: one call per chunked frame,
 * the frames of each 64 KB of body (a socket's usual read) in one macrotask, then the decode
 * and the iterator. What undici's parsing adds is the gap between this and the throughput rows.
 */
async function readerOnly(pieces: Buffer[], expected: string): Promise<number> {
  const reads: Buffer[][] = [[]];
  let readBytes = 0;
  for (const piece of pieces) {
    if (readBytes >= 65_536) {
      reads.push([]);
      readBytes = 0;
    }
    reads.at(-1)!.push(piece);
    readBytes += piece.length;
  }
  const runs: number[] = [];
  const noConnection = { pause() {}, resume() {}, abort() {} };
  for (let run = -WARM_UP_RUNS; run < MEASURED_RUNS; run++) {
    const scope = new CallScope({ method: 'POST', path: '/bench' }, DEFAULT_TIMEOUTS);
    const text = new TextBody(scope, noConnection);
    const start = performance.now();
    void (async () => {
      for (const frames of reads) {
        for (const frame of frames) text.push(frame);
        await new Promise((resolve) => setImmediate(resolve));
      }
      text.end();
    })();
    const out: string[] = [];
    for await (const piece of text) out.push(piece);
    const seconds = (performance.now() - start) / 1000;
    scope.end();
    if (out.join('') !== expected) throw new Error('stream reader changed the text');
    if (run < 0) continue;
    runs.push(ANSWER_BYTES / 1024 / 1024 / seconds);
  }
  return median(runs);
}

/** UTF-8 decoding alone, the floor under any reader: the bytes in 64 KB slices, streaming. */
function decodeOnly(pieces: Buffer[]): number {
  const bytes = Buffer.concat(pieces);
  const runs: number[] = [];
  for (let run = -WARM_UP_RUNS; run < MEASURED_RUNS; run++) {
    const decoder = new TextDecoder();
    const start = performance.now();
    let chars = 0;
    for (let at = 0; at < bytes.length; at += 65_536) {
      chars += decoder.decode(bytes.subarray(at, at + 65_536), { stream: true }).length;
    }
    const seconds = (performance.now() - start) / 1000;
    if (chars === 0) throw new Error('nothing decoded');
    if (run >= 0) runs.push(ANSWER_BYTES / 1024 / 1024 / seconds);
  }
  return median(runs);
}

/** The machine's ceiling: the same bytes read from a raw socket, no HTTP, no decoding. */
async function loopbackCeiling(pieces: Buffer[]): Promise<number> {
  const response = buildResponse(pieces, 'close');
  const { url, server } = await rawServer(response);
  const port = Number(new URL(url).port);
  const runs: number[] = [];
  for (let run = 0; run < 5; run++) {
    const start = performance.now();
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET / HTTP/1.1\r\n\r\n'));
      let bytes = 0;
      socket.on('data', (data) => (bytes += data.length));
      socket.on('error', reject);
      socket.on('end', () => (bytes === response.length ? resolve() : reject(new Error('short'))));
    });
    runs.push(ANSWER_BYTES / 1024 / 1024 / ((performance.now() - start) / 1000));
  }
  await server.close();
  return median(runs);
}

/** Ping-pong rounds dropped before measuring: the JIT compiles the path meanwhile. */
const LATENCY_WARM_UP = 1_000;

/** The same ping-pong over a raw socket pair: what the machine itself adds. */
async function rawLatency(rounds: number): Promise<number[]> {
  let serverSide!: (socket: Socket) => void;
  const accepted = new Promise<Socket>((resolve) => (serverSide = resolve));
  const server = createTcpServer(serverSide);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
  const writer = await accepted;
  let arrived: (at: number) => void = () => {};
  client.on('data', () => arrived(performance.now()));
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const got = new Promise<number>((resolve) => (arrived = resolve));
    const sent = performance.now();
    writer.write(`piece ${round} `);
    samples.push((await got) - sent);
  }
  client.destroy();
  writer.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return samples.slice(LATENCY_WARM_UP);
}

/** Time from the server writing a piece to the iterator handing it on, many times over. */
async function addedLatency(rounds: number): Promise<number[]> {
  let response!: (res: ServerResponse) => void;
  const opened = new Promise<ServerResponse>((resolve) => (response = resolve));
  const server = createHttpServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.flushHeaders();
    response(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = createServiceClient({ baseUrl: url, apiKey: 'bench-key-0000' });
  const stream = await client.streamMessage('bench', { query: 'q' });
  const res = await opened;
  let arrived: (at: number) => void = () => {};
  const reader = (async () => {
    for await (const _piece of stream) arrived(performance.now());
  })();
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const got = new Promise<number>((resolve) => (arrived = resolve));
    const sent = performance.now();
    res.write(`piece ${round} `);
    samples.push((await got) - sent);
  }
  res.end();
  await reader;
  await client.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return samples.slice(LATENCY_WARM_UP);
}

const CONCURRENT_ANSWERS = 1_000;
const CONCURRENT_ROUNDS = 10;
/** Answers measured per round at each end: the first ones asked, and the 1,000th and after. */
const PROBES = 10;
/** The answers' hold is released after this long at the latest: "written over seconds". */
const RELEASE_AFTER_MS = 5_000;
/** How long after the burst the 1,000th and later answers are asked (see concurrentStreams). */
const SETTLE_MS = 1_000;

interface Concurrency {
  /** Times to the first piece (ms) of answers asked first, and with 999 or more streaming. */
  first: number[];
  last: number[];
}

/** The local service (memory store) in a worker thread: see service-worker.ts. */
async function serviceOnItsOwnThread(apiKey: string) {
  const script = new URL('./service-worker.ts', import.meta.url).href;
  // Workers do not inherit tsx's loader: the worker registers it before importing the script.
  const worker = new Worker(
    `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(script)}); })`,
    { eval: true, workerData: { apiKey } },
  );
  const reply = () =>
    new Promise<string>((resolve, reject) => {
      const onError = (error: Error) => reject(error);
      worker.once('error', onError);
      worker.once('message', (message: string) => {
        worker.off('error', onError);
        resolve(message);
      });
    });
  const url = await reply();
  return {
    url,
    drain: async () => {
      worker.postMessage('drain');
      await reply();
    },
    hold: async () => {
      worker.postMessage('hold');
      await reply();
    },
    release: () => worker.postMessage('release'),
    close: async () => {
      worker.postMessage('close');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * 1,000 answers open at once against the local service (its own thread, memory store): every
 * answer sends its first piece, then stays open until released. Per round, the first PROBES
 * answers are asked one after another and timed to their first piece; then the rest up to 999
 * at once; once they all stream (and, with `settleMs`, that much later), PROBES more one after
 * another (the 1,000th and after). If answers queued for connections, those would wait for
 * others to end (the release, RELEASE_AFTER_MS later). Asked right after the burst, the tail
 * measures the collection of the burst's garbage (measured: --max-semi-space-size=64 halves
 * it), not the pool; hence a second run asked 1 s later.
 */
async function concurrentStreams(
  rounds: number,
  dispatcher?: Dispatcher,
  settleMs = 0,
): Promise<Concurrency> {
  const apiKey = 'bench-concurrency-key';
  const service = await serviceOnItsOwnThread(apiKey);
  const client = createServiceClient({ baseUrl: service.url, apiKey, dispatcher });
  // The local service allows at most 100 messages a second per chatbot: 50 sessions on each.
  const sessions: string[] = [];
  for (let bot = 0; bot < Math.ceil((CONCURRENT_ANSWERS - 1 + PROBES) / 50); bot++) {
    const chatbot = await client.createChatbot({ name: `bench ${bot}`, rate_limit: [100, 1] });
    await client.addQaSource(chatbot.uuid, {
      question: 'What is the refund period?',
      answer: 'Refunds are accepted within 30 days of purchase.',
    });
    const made = await Promise.all(
      Array.from({ length: 50 }, () => client.createSession(chatbot.uuid)),
    );
    sessions.push(...made.map((session) => session.uuid));
  }
  await service.drain();
  /** Asks in `session`; resolves with the time to the first piece and the whole answer. */
  const answer = (session: string) => {
    const start = performance.now();
    const firstPiece = client
      .streamMessage(session, { query: 'What is the refund period?' })
      .then(async (stream) => {
        const pieces = stream[Symbol.asyncIterator]();
        const first = await pieces.next();
        return { elapsed: performance.now() - start, pieces, text: first.value ?? '' };
      });
    const whole = firstPiece.then(async ({ pieces, text }) => {
      for (let next = await pieces.next(); !next.done; next = await pieces.next()) {
        text += next.value;
      }
      if (!text.includes('30 days')) throw new Error(`unexpected answer: ${text}`);
    });
    return { firstPiece: firstPiece.then(({ elapsed }) => elapsed), whole };
  };
  const result: Concurrency = { first: [], last: [] };
  for (let round = -1; round < rounds; round++) {
    await service.hold();
    const asked: Array<ReturnType<typeof answer>> = [];
    const firsts: number[] = [];
    for (const session of sessions.slice(0, PROBES)) {
      asked.push(answer(session));
      firsts.push(await asked.at(-1)!.firstPiece);
    }
    const middle = sessions.slice(PROBES, CONCURRENT_ANSWERS - 1).map(answer);
    asked.push(...middle);
    await Promise.race([Promise.all(middle.map((one) => one.firstPiece)), delay(RELEASE_AFTER_MS)]);
    // The 999 keep streaming meanwhile; the pause only lets the burst's garbage be collected.
    if (settleMs > 0) await delay(settleMs);
    const lasts: number[] = [];
    for (const session of sessions.slice(CONCURRENT_ANSWERS - 1, CONCURRENT_ANSWERS - 1 + PROBES)) {
      const last = answer(session);
      asked.push(last);
      // Released after RELEASE_AFTER_MS at the latest, should this answer wait for a connection.
      const timer = setTimeout(() => service.release(), RELEASE_AFTER_MS);
      lasts.push(await last.firstPiece);
      clearTimeout(timer);
    }
    service.release();
    await Promise.all(asked.map((one) => one.whole));
    if (round < 0) continue; // warm-up: connections opened, code compiled
    result.first.push(...firsts);
    result.last.push(...lasts);
  }
  await client.close();
  await dispatcher?.close();
  await service.close();
  return result;
}

export async function run(): Promise<BenchRow[]> {
  const load = loadavg()[0]!;
  // Latency first, on a small heap: the 10 MB runs leave garbage whose collection would land
  // in the middle of the ping-pong and measure the collector, not the reader.
  const raw = await rawLatency(LATENCY_WARM_UP + 2000);
  const latency = await addedLatency(LATENCY_WARM_UP + 2000);
  const p50 = percentile(latency, 50);
  const p99 = percentile(latency, 99);
  const pieces = buildPieces();
  const expected = Buffer.concat(pieces).toString('utf8');
  const chunked = await throughput('chunked', pieces, expected);
  const englishPieces = buildPieces(ENGLISH_WORDS);
  const english = await throughput(
    'chunked',
    englishPieces,
    Buffer.concat(englishPieces).toString('utf8'),
  );
  const unframed = await throughput('close', pieces, expected);
  const ceiling = await loopbackCeiling(pieces);
  const reader = await readerOnly(englishPieces, Buffer.concat(englishPieces).toString('utf8'));
  const mixedDecode = decodeOnly(pieces);
  const concurrency = await concurrentStreams(CONCURRENT_ROUNDS, undefined, SETTLE_MS);
  const rightAfter = await concurrentStreams(CONCURRENT_ROUNDS);
  // The same through one pool capped at 200 connections, as if answers shared a capped pool:
  // the answers past 200 wait for whole answers to end (one round: it is slow).
  const capped = await concurrentStreams(1, new Agent({ connections: 200 }));
  const firstP95 = percentile(concurrency.first, 95);
  const lastP95 = percentile(concurrency.last, 95);
  const mbps = (v: number) => `${v.toFixed(0)} MB/s`;
  const rate = (r: Rate) => `${mbps(r.wall)} (${r.cpu.toFixed(0)} MB/CPU-s)`;
  return [
    {
      area: AREA,
      metric: `stream throughput, 10 MB answer (English-like, ~1% non-ASCII bytes) in ${englishPieces.length} chunks of 1-200 B`,
      value: rate(english),
      target: '>= 150 MB/s',
      ok: english.wall >= 150,
    },
    {
      area: AREA,
      metric: `stress: same with mixed text (~30% multi-byte: CJK, emoji) in ${pieces.length} chunks`,
      value: rate(chunked),
      target: '>= 150 MB/s',
      ok: chunked.wall >= 150,
    },
    {
      area: AREA,
      metric:
        'floor under the stress row: UTF-8 decode alone of the mixed text (64 KB slices, no I/O)',
      value: mbps(mixedDecode),
      target: '',
    },
    {
      area: AREA,
      metric: 'stream throughput, mixed text, unframed body (no chunked coding)',
      value: rate(unframed),
      target: '',
    },
    {
      area: AREA,
      metric:
        'stream reader alone, English-like (frames from memory, 64 KB a read: grouping, decode, iterator)',
      value: mbps(reader),
      target: '',
    },
    {
      area: AREA,
      metric: 'loopback ceiling: same bytes from a raw socket (no HTTP, no decoding)',
      value: mbps(ceiling),
      target: '',
    },
    {
      area: AREA,
      metric: `${CONCURRENT_ANSWERS} answer streams at once (local service on its own thread): first byte p95 of the ${CONCURRENT_ANSWERS}th and after (${CONCURRENT_ANSWERS - 1}+ streaming, asked ${SETTLE_MS / 1000} s after they started) / of the first ${PROBES}, ${CONCURRENT_ROUNDS} rounds`,
      value: `${lastP95.toFixed(1)} / ${firstP95.toFixed(1)} ms (p50 ${percentile(concurrency.last, 50).toFixed(1)} / ${percentile(concurrency.first, 50).toFixed(1)})`,
      target: '<= 2x the first',
      ok: lastP95 <= 2 * firstP95,
    },
    {
      area: AREA,
      metric: `same, the ${CONCURRENT_ANSWERS}th asked right after the burst of ${CONCURRENT_ANSWERS - PROBES - 1} (the burst's garbage collection in the tail)`,
      value: `${percentile(rightAfter.last, 95).toFixed(1)} / ${percentile(rightAfter.first, 95).toFixed(1)} ms (p50 ${percentile(rightAfter.last, 50).toFixed(1)} / ${percentile(rightAfter.first, 50).toFixed(1)})`,
      target: '',
    },
    {
      area: AREA,
      metric: `for comparison: the same through one pool capped at 200 connections (${CONCURRENT_ANSWERS}th / first; answers released after ${RELEASE_AFTER_MS / 1000} s)`,
      value: `${capped.last[0]!.toFixed(1)} / ${capped.first[0]!.toFixed(1)} ms`,
      target: '',
    },
    {
      area: AREA,
      metric: `machine load when the suite started (1-minute load average, ${cpus().length} CPUs)`,
      value: load.toFixed(2),
      target: '',
    },
    {
      area: AREA,
      metric: `stream added latency p50 (${latency.length} pieces, loopback)`,
      value: `${p50.toFixed(3)} ms`,
      target: '',
    },
    {
      area: AREA,
      metric: `stream added latency p99 (${latency.length} pieces, loopback)`,
      value: `${p99.toFixed(3)} ms`,
      target: '< 1 ms',
      ok: p99 < 1,
    },
    {
      area: AREA,
      metric: 'loopback latency ceiling p50 / p99: same ping-pong over a raw socket pair',
      value: `${percentile(raw, 50).toFixed(3)} / ${percentile(raw, 99).toFixed(3)} ms`,
      target: '',
    },
  ];
}
