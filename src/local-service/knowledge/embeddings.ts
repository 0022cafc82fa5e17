// The client of an OpenAI-compatible embeddings endpoint (OpenAI, Ollama, llama.cpp server):
// POST {EMBEDDINGS_URL}/embeddings {model, input: [texts]} → {data: [{index, embedding}]}.
// Through undici, with a deadline per call, a cap on the body it reads, and every answer
// checked (count, dimensions, numbers) before a vector is believed. Errors name the setting
// and never hold the key: the key goes in one header and is masked in any text quoted back.
import { request, type Dispatcher } from 'undici';
import { CodedError, ErrorCode } from '../../errors.js';

export interface EmbeddingsConfig {
  /** The API's base, e.g. http://127.0.0.1:11434/v1 (`/embeddings` is appended unless there). */
  url: string;
  model: string;
  apiKey?: string;
  /** Longest time one call at ingest (one batch) may take. Default 30 s. */
  timeoutMs?: number;
  /** Longest time the question may take to embed at ask time; past it, bm25 alone. Default 2 s. */
  questionTimeoutMs?: number;
  /** A test double, or a proxy; undici's global dispatcher otherwise. */
  dispatcher?: Dispatcher;
}

export const EMBEDDINGS_TIMEOUTS = { callMs: 30_000, questionMs: 2_000 } as const;

/** Texts sent in one call: well under every server's limit (OpenAI takes 2,048 inputs). */
export const EMBED_BATCH = 32;
/**
 * Characters of one text sent, at most: a chunk is ~300 tokens, but a section with a long table
 * can be more than a small model's context (512 tokens); its beginning still says what it is.
 */
const MAX_INPUT_CHARS = 2_000;
/** Largest body read: 32 vectors of 8,192 numbers at ~24 characters each is 6 MiB. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Most dimensions believed: the largest common models have 3,072 or 4,096. */
const MAX_DIMENSIONS = 16_384;

/** Why the embeddings endpoint could not give vectors (down, slow, a bad answer). */
export class EmbeddingsError extends CodedError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(ErrorCode.EmbeddingsFailed, `EMBEDDINGS_URL: ${message}`, options);
  }
}

export interface EmbeddingsClient {
  readonly model: string;
  /** One vector per text, in order; the texts are sent in batches of EMBED_BATCH. */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
}

export interface EmbedOptions {
  /** Per call; the config's timeoutMs by default. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The endpoint's address: the base with `/embeddings`, or the full address as given. */
export function endpointOf(url: string): string {
  const base = url.replace(/\/+$/, '');
  return /\/embeddings$/.test(base) ? base : `${base}/embeddings`;
}

function masked(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('***') : text;
}

/** The body as text, refused past MAX_BODY_BYTES (a runaway server must not fill memory). */
async function readCapped(body: Dispatcher.ResponseData['body']): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of body as AsyncIterable<Buffer>) {
    size += part.byteLength;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new EmbeddingsError(`the answer is larger than ${MAX_BODY_BYTES} bytes`);
    }
    parts.push(part);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** The vectors of an answer, checked: one per input, all of one size, finite numbers. */
export function vectorsOf(answer: unknown, count: number): Float32Array[] {
  const data = (answer as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw new EmbeddingsError('the answer has no "data" list');
  if (data.length !== count)
    throw new EmbeddingsError(`asked for ${count} vectors, the answer has ${data.length}`);
  const items = data.map((item: unknown, position) => {
    const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
    return { at: typeof index === 'number' ? index : position, embedding };
  });
  items.sort((a, b) => a.at - b.at);
  let size: number | undefined;
  return items.map(({ embedding }, position) => {
    if (!Array.isArray(embedding) || embedding.length === 0)
      throw new EmbeddingsError(`vector ${position} is not a list of numbers`);
    if (embedding.length > MAX_DIMENSIONS)
      throw new EmbeddingsError(`vector ${position} has ${embedding.length} dimensions`);
    size ??= embedding.length;
    if (embedding.length !== size)
      throw new EmbeddingsError(
        `vectors of different sizes in one answer (${size} and ${embedding.length})`,
      );
    if (!embedding.every((n) => typeof n === 'number' && Number.isFinite(n)))
      throw new EmbeddingsError(`vector ${position} holds something other than numbers`);
    return Float32Array.from(embedding as number[]);
  });
}

export function createEmbeddingsClient(config: EmbeddingsConfig): EmbeddingsClient {
  const endpoint = endpointOf(config.url);
  const timeoutMs = config.timeoutMs ?? EMBEDDINGS_TIMEOUTS.callMs;

  async function call(texts: readonly string[], options: EmbedOptions): Promise<Float32Array[]> {
    const ms = options.timeoutMs ?? timeoutMs;
    const deadline = AbortSignal.timeout(ms);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    try {
      const response = await request(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: config.model,
          input: texts.map((text) => text.slice(0, MAX_INPUT_CHARS)),
        }),
        signal,
        ...(config.dispatcher ? { dispatcher: config.dispatcher } : {}),
      });
      const text = await readCapped(response.body);
      if (response.statusCode < 200 || response.statusCode > 299) {
        const detail = masked(text.replace(/\s+/g, ' ').trim().slice(0, 200), config.apiKey);
        throw new EmbeddingsError(
          `answered HTTP ${response.statusCode}${detail ? `: ${detail}` : ''}`,
        );
      }
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        throw new EmbeddingsError(
          `the answer is not JSON: ${masked(text.slice(0, 80), config.apiKey)}`,
        );
      }
      return vectorsOf(answer, texts.length);
    } catch (error) {
      if (error instanceof EmbeddingsError) throw error;
      if (deadline.aborted)
        throw new EmbeddingsError(`no answer within ${ms} ms`, { cause: error });
      if (options.signal?.aborted) throw error; // the caller stopped: not the endpoint's fault
      const reason = masked((error as Error).message ?? String(error), config.apiKey);
      throw new EmbeddingsError(`cannot be reached at ${endpoint}: ${reason}`, { cause: error });
    }
  }

  return {
    model: config.model,
    async embed(texts, options = {}) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += EMBED_BATCH)
        vectors.push(...(await call(texts.slice(start, start + EMBED_BATCH), options)));
      return vectors;
    },
  };
}
