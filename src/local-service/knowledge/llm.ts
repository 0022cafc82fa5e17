// Answers written by an OpenAI-compatible chat-completions endpoint from the retrieved
// passages: POST {url}/chat/completions with stream: true, the SSE deltas yielded as they
// arrive. Passages are offered to the model with their citation markers ([1.2], the same
// scheme as the extractive writer); citeData holds an entry for every marker offered, and
// citedIn(text, citeData) narrows it to the markers the answer actually used.
import { fetch as undiciFetch, type Dispatcher } from 'undici';
import type { CiteEntry } from '../../service/types.js';
import { citePassages } from './cite.js';
import { sseData } from './sse.js';
import type { Passage } from './types.js';

export interface LlmConfig {
  /** Base URL of the API, e.g. https://api.openai.com/v1 (…/chat/completions is appended). */
  url: string;
  model: string;
  apiKey?: string;
  dispatcher?: Dispatcher;
  fetch?: typeof undiciFetch;
  /** Longest wait for the first event of the answer (headers included). Default 30 s. */
  firstByteTimeoutMs?: number;
  /** Longest silence between two events once the answer has started. Default 60 s. */
  idleTimeoutMs?: number;
}

export const LLM_TIMEOUTS = { firstByteMs: 30_000, idleMs: 60_000 } as const;

/** Thrown when the model endpoint stalls: nothing came for the allowed time. */
export class LlmTimeoutError extends Error {
  constructor(
    readonly phase: 'first byte' | 'idle',
    ms: number,
  ) {
    super(
      phase === 'first byte'
        ? `language model sent nothing within ${ms} ms`
        : `language model went silent for ${ms} ms mid-answer`,
    );
    this.name = 'LlmTimeoutError';
  }
}

/** A restartable deadline that aborts its signal when it passes. */
function deadline(outer: AbortSignal | undefined) {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let expired: LlmTimeoutError | undefined;
  const onOuter = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener('abort', onOuter, { once: true });
  return {
    signal: controller.signal,
    get expired() {
      return expired;
    },
    arm(phase: 'first byte' | 'idle', ms: number) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        expired = new LlmTimeoutError(phase, ms);
        controller.abort(expired);
      }, ms);
    },
    pause() {
      clearTimeout(timer);
    },
    dispose() {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onOuter);
    },
  };
}

export interface LlmInput {
  /** The agent's prompt. */
  prompt: string;
  temperature: number;
  query: string;
  passages: Passage[];
  history: { query: string; response: string }[];
  citations: boolean;
  signal?: AbortSignal;
}

/** Iterate for the text pieces; citeData is known at once, finishReason after the end. */
export interface LlmAnswer extends AsyncIterable<string> {
  readonly citeData: Record<string, CiteEntry>;
  /** "stop", "length", … as reported by the model; "stop" until told otherwise. */
  readonly finishReason: string;
}

interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export function buildMessages(input: LlmInput): {
  messages: ChatMessage[];
  citeData: Record<string, CiteEntry>;
} {
  const cited = citePassages(input.passages);
  const citeData: Record<string, CiteEntry> = {};
  const blocks = cited.map(({ key, passage, entry }) => {
    if (input.citations) citeData[key] = entry;
    const label = input.citations ? `[${key}] ` : '';
    return `${label}From "${passage.title || passage.fileName}":\n${passage.text}`;
  });
  const rules = [
    'Answer the user using only the passages below. If they do not hold the answer, say that you could not find it in your sources.',
    input.citations
      ? 'After each sentence that uses a passage, write its marker exactly as given, e.g. [1.2]. Use no other markers.'
      : 'Do not mention passage numbers or markers.',
  ].join(' ');
  const knowledge = blocks.length > 0 ? blocks.join('\n\n') : '(no passages matched this question)';
  const messages: ChatMessage[] = [
    { role: 'system', content: input.prompt.trim() === '' ? rules : `${input.prompt}\n\n${rules}` },
    { role: 'system', content: `Passages:\n\n${knowledge}` },
  ];
  for (const turn of input.history) {
    messages.push(
      { role: 'user', content: turn.query },
      { role: 'assistant', content: turn.response },
    );
  }
  messages.push({ role: 'user', content: input.query });
  return { messages, citeData };
}

function redact(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('***') : text;
}

export function streamLlmAnswer(config: LlmConfig, input: LlmInput): LlmAnswer {
  const { messages, citeData } = buildMessages(input);
  let finishReason = 'stop';
  const doFetch = config.fetch ?? undiciFetch;

  const firstByteMs = config.firstByteTimeoutMs ?? LLM_TIMEOUTS.firstByteMs;
  const idleMs = config.idleTimeoutMs ?? LLM_TIMEOUTS.idleMs;

  async function* pieces(): AsyncGenerator<string> {
    const timer = deadline(input.signal);
    timer.arm('first byte', firstByteMs);
    try {
      yield* read(timer);
    } catch (error) {
      // A stall aborts the fetch; say why instead of a bare AbortError.
      throw timer.expired ?? error;
    } finally {
      timer.dispose();
    }
  }

  async function* read(timer: ReturnType<typeof deadline>): AsyncGenerator<string> {
    const endpoint = `${config.url.replace(/\/+$/, '')}/chat/completions`;
    const response = await doFetch(endpoint, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream',
        ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
      },
      body: JSON.stringify({
        model: config.model,
        messages,
        temperature: input.temperature,
        stream: true,
      }),
      signal: timer.signal,
      ...(config.dispatcher ? { dispatcher: config.dispatcher } : {}),
    });
    if (!response.ok || response.body === null) {
      const detail = redact((await response.text().catch(() => '')).slice(0, 300), config.apiKey);
      throw new Error(
        `language model answered HTTP ${response.status}${detail ? `: ${detail}` : ''}`,
      );
    }
    for await (const data of sseData(response.body)) {
      // The clock restarts at every event (and is paused while the reader holds a piece).
      timer.arm('idle', idleMs);
      if (data.trim() === '[DONE]') return;
      let event: {
        choices?: { delta?: { content?: unknown }; finish_reason?: unknown }[];
        error?: { message?: unknown };
      };
      try {
        event = JSON.parse(data);
      } catch {
        throw new Error(`language model sent an event that is not JSON: ${data.slice(0, 100)}`);
      }
      if (event.error)
        throw new Error(
          `language model error: ${redact(String(event.error.message ?? 'unknown'), config.apiKey)}`,
        );
      const choice = event.choices?.[0];
      if (typeof choice?.finish_reason === 'string') finishReason = choice.finish_reason;
      const content = choice?.delta?.content;
      if (typeof content === 'string' && content !== '') {
        timer.pause(); // a slow reader is not a stalled model
        yield content;
        timer.arm('idle', idleMs);
      }
    }
  }

  return {
    citeData,
    get finishReason() {
      return finishReason;
    },
    [Symbol.asyncIterator]: pieces,
  };
}
