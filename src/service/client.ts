// The client of the chatbot service: one method per endpoint of the interface. Every input is
// validated before anything is sent; every call has timeouts, an AbortSignal and a bounded
// retry policy (see retry.ts); every response is normalised (see normalize.ts).
import { FormData } from 'undici';
import type { AnswerStream, CallOptions, ServiceClient, ServiceClientConfig } from './api.js';
import type { ServiceTimeouts } from './api.js';
import { ServiceError } from './errors.js';
import { Transport, type HttpRequest } from './http.js';
import {
  normalizeAgent,
  normalizeChatbot,
  normalizeDataSource,
  normalizeMessage,
  normalizeSession,
  normalizeSourceTag,
} from './normalize.js';
import { errorFromResponse, parseJson, protocolError } from './responses.js';
import { backoffDelay, isRetryable, sleep, type CallKind } from './retry.js';
import { CallScope, type Where } from './scope.js';
import type { TextBody } from './stream.js';
import type { UploadSourceInput } from './types.js';
import {
  requireId,
  validateAgentCreate,
  validateAgentUpdate,
  validateChatbotCreate,
  validateQaSource,
  validateSessionCreate,
  validateSourceRename,
  validateSourceTagCreate,
  validateSourceTagUpdate,
  validateStream,
  validateUpload,
  validateUrlSource,
} from './validate.js';

export const DEFAULT_TIMEOUTS: ServiceTimeouts = {
  connectMs: 10_000,
  firstByteMs: 30_000,
  idleMs: 60_000,
  totalMs: 5 * 60_000,
};

const JSON_ACCEPT = 'application/json';
// The stream's Content-Type is undocumented; we accept anything and decide nothing from it.
const STREAM_ACCEPT = 'text/plain, */*';

interface Call<T> {
  kind: CallKind;
  method: 'GET' | 'POST';
  /** Full path from /api/v1 on. */
  path: string;
  body?: () => string | FormData;
  parse?: (json: unknown) => T;
  /** A 409 body names the data source that already exists. */
  conflictIsSource?: boolean;
}

/** Path segment for an id: checked (non-empty, no / ? # or spaces) and URL-encoded. */
const seg = (id: unknown, field: string): string => encodeURIComponent(requireId(id, field));

const json = (value: unknown) => () => JSON.stringify(value);

function uploadForm(input: UploadSourceInput): () => FormData {
  return () => {
    const form = new FormData();
    const type = input.content_type ?? 'application/octet-stream';
    form.append('file', new Blob([input.file], { type }), input.file_name);
    const meta: Record<string, unknown> = { ...input.meta };
    if (input.reference_source_link !== undefined) {
      meta.reference_source_link = input.reference_source_link;
    }
    form.append('meta_json', JSON.stringify(meta));
    return form;
  };
}

function listOf<T>(normalize: (item: unknown) => T, what: string) {
  return (value: unknown): T[] => {
    if (!Array.isArray(value)) throw new TypeError(`expected a list of ${what}`);
    return value.map(normalize);
  };
}

function objectOf<T>(normalize: (item: unknown) => T, what: string) {
  return (value: unknown): T => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new TypeError(`expected a ${what} object`);
    }
    return normalize(value);
  };
}

export function createServiceClient(config: ServiceClientConfig): ServiceClient {
  const timeouts: ServiceTimeouts = { ...DEFAULT_TIMEOUTS, ...config.timeouts };
  const maxRetries = config.maxRetries ?? 3;
  const retryBaseMs = config.retryBaseMs ?? 200;
  const transport = new Transport({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    timeouts,
    connections: config.connections ?? 16,
    dispatcher: config.dispatcher,
    ca: config.ca,
    proxy: config.proxy,
  });
  const apiKey = config.apiKey;
  const scrub = (text: string) => (text.includes(apiKey) ? text.split(apiKey).join('***') : text);

  /** Sends with retries; resolves with the 2xx body, or throws the mapped error. */
  async function exchange(call: Call<unknown>, scope: CallScope): Promise<TextBody> {
    const request: HttpRequest = {
      method: call.method,
      path: call.path,
      accept: call.kind === 'stream' ? STREAM_ACCEPT : JSON_ACCEPT,
      stream: call.kind === 'stream',
      body: call.body,
    };
    for (let attempt = 0; ; attempt++) {
      let failure: unknown;
      try {
        const response = await transport.send(request, scope);
        if (response.status >= 200 && response.status < 300) return response.body;
        const text = await response.body.readAll();
        failure = errorFromResponse(response.status, response.headers, text, {
          where: scope.where,
          conflictIsSource: call.conflictIsSource ?? false,
          now: Date.now(),
          scrub,
        });
      } catch (error) {
        failure = error;
      }
      if (scope.aborted) throw scope.reason;
      if (attempt >= maxRetries || !isRetryable(call.kind, failure)) throw failure;
      const asked = failure instanceof ServiceError ? failure.retryAfterMs : undefined;
      const delay =
        asked !== undefined ? Math.min(asked, 10_000) : backoffDelay(attempt, retryBaseMs);
      await sleep(delay, scope.signal);
    }
  }

  function open(call: Call<unknown>, options: CallOptions | undefined): CallScope {
    const where: Where = { method: call.method, path: call.path };
    const limits = { ...timeouts, totalMs: options?.timeoutMs ?? timeouts.totalMs };
    return new CallScope(where, limits, options?.signal);
  }

  async function run<T>(call: Call<T>, options?: CallOptions): Promise<T> {
    const scope = open(call, options);
    try {
      const body = await exchange(call, scope);
      const text = await body.readAll();
      const parsed = parseJson(text);
      if (!parsed.ok) {
        throw protocolError(scope.where, 200, scrub(text), 'the response is not JSON');
      }
      try {
        return call.parse!(parsed.value);
      } catch (error) {
        throw protocolError(scope.where, 200, scrub(text), (error as Error).message);
      }
    } finally {
      scope.end();
    }
  }

  async function stream(call: Call<never>, options?: CallOptions): Promise<AnswerStream> {
    const scope = open(call, options);
    try {
      const body = await exchange(call, scope);
      // The scope lives on with the stream: it ends when the body ends, fails or is cancelled.
      body.whenSettled(() => scope.end());
      return body;
    } catch (error) {
      scope.end();
      throw error;
    }
  }

  return {
    createChatbot: async (input, options) => {
      validateChatbotCreate(input);
      const parse = objectOf(normalizeChatbot, 'chatbot');
      return run(
        {
          kind: 'create',
          method: 'POST',
          path: '/api/v1/chatbot/create',
          body: json(input),
          parse,
        },
        options,
      );
    },
    listChatbots: async (options) =>
      run(
        {
          kind: 'read',
          method: 'GET',
          path: '/api/v1/chatbots',
          parse: listOf(normalizeChatbot, 'chatbots'),
        },
        options,
      ),

    listAgents: async (chatbotUuid, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/agents`;
      return run(
        { kind: 'read', method: 'GET', path, parse: listOf(normalizeAgent, 'agents') },
        options,
      );
    },
    createAgent: async (chatbotUuid, input, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/agent/create`;
      validateAgentCreate(input);
      const parse = objectOf(normalizeAgent, 'agent');
      return run({ kind: 'create', method: 'POST', path, body: json(input), parse }, options);
    },
    updateAgent: async (agentUuid, input, options) => {
      const path = `/api/v1/agent/${seg(agentUuid, 'agentUuid')}/update`;
      validateAgentUpdate(input);
      const parse = objectOf(normalizeAgent, 'agent');
      return run({ kind: 'update', method: 'POST', path, body: json(input), parse }, options);
    },

    addQaSource: async (chatbotUuid, input, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/data-source/qa`;
      validateQaSource(input);
      const parse = objectOf(normalizeDataSource, 'data source');
      return run({ kind: 'create', method: 'POST', path, body: json(input), parse }, options);
    },
    addUrlSource: async (chatbotUuid, input, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/data-source/url`;
      validateUrlSource(input);
      const parse = objectOf(normalizeDataSource, 'data source');
      const call = {
        kind: 'create',
        method: 'POST',
        path,
        body: json(input),
        parse,
        conflictIsSource: true,
      } as const;
      return run(call, options);
    },
    uploadSource: async (chatbotUuid, input, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/data-source/upload`;
      validateUpload(input);
      const parse = objectOf(normalizeDataSource, 'data source');
      const call = {
        kind: 'create',
        method: 'POST',
        path,
        body: uploadForm(input),
        parse,
        conflictIsSource: true,
      } as const;
      return run(call, options);
    },
    renameSource: async (sourceUuid, input, options) => {
      const path = `/api/v1/data-source/${seg(sourceUuid, 'sourceUuid')}/update`;
      validateSourceRename(input);
      const parse = objectOf(normalizeDataSource, 'data source');
      return run({ kind: 'update', method: 'POST', path, body: json(input), parse }, options);
    },

    listSourceTags: async (chatbotUuid, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/source-tags`;
      return run(
        { kind: 'read', method: 'GET', path, parse: listOf(normalizeSourceTag, 'source tags') },
        options,
      );
    },
    createSourceTag: async (chatbotUuid, input, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/source-tag/create`;
      validateSourceTagCreate(input);
      const parse = objectOf(normalizeSourceTag, 'source tag');
      return run({ kind: 'create', method: 'POST', path, body: json(input), parse }, options);
    },
    updateSourceTag: async (tagUuid, input, options) => {
      const path = `/api/v1/source-tag/${seg(tagUuid, 'tagUuid')}/update`;
      validateSourceTagUpdate(input);
      const parse = objectOf(normalizeSourceTag, 'source tag');
      return run({ kind: 'update', method: 'POST', path, body: json(input), parse }, options);
    },

    createSession: async (chatbotUuid, input, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/session/create`;
      const body = validateSessionCreate(input);
      const parse = objectOf(normalizeSession, 'session');
      return run({ kind: 'create', method: 'POST', path, body: json(body), parse }, options);
    },
    streamMessage: async (sessionUuid, input, options) => {
      const path = `/api/v1/session/${seg(sessionUuid, 'sessionUuid')}/message/stream`;
      validateStream(input);
      return stream({ kind: 'stream', method: 'POST', path, body: json(input) }, options);
    },
    listMessages: async (sessionUuid, options) => {
      const path = `/api/v1/session/${seg(sessionUuid, 'sessionUuid')}/messages`;
      return run(
        { kind: 'read', method: 'GET', path, parse: listOf(normalizeMessage, 'messages') },
        options,
      );
    },

    close: () => transport.close(),
  };
}
