// The client of the chatbot service: one method per endpoint of the interface. Every input is
// validated before anything is sent; every call has timeouts, an AbortSignal and a bounded
// retry policy (see retry.ts); every response is normalised (see normalize.ts).
import { FormData } from 'undici';
import type { ServiceClient, ServiceClientConfig, ServiceTimeouts } from './api.js';
import { Caller } from './caller.js';
import { Transport } from './http.js';
import {
  normalizeAgent,
  normalizeChatbot,
  normalizeDataSource,
  normalizeMessage,
  normalizeSession,
  normalizeSourceTag,
} from './normalize.js';
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
  const transport = new Transport({
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    timeouts,
    connections: config.connections ?? 16,
    dispatcher: config.dispatcher,
    ca: config.ca,
    proxy: config.proxy,
  });
  const caller = new Caller({
    transport,
    timeouts,
    apiKey: config.apiKey,
    maxRetries: config.maxRetries ?? 3,
    retryBaseMs: config.retryBaseMs ?? 200,
  });
  return {
    ...chatbotEndpoints(caller),
    ...sourceEndpoints(caller),
    ...tagEndpoints(caller),
    ...sessionEndpoints(caller),
    close: () => transport.close(),
  };
}

/** Chatbots and their agents. */
function chatbotEndpoints(
  caller: Caller,
): Pick<
  ServiceClient,
  'createChatbot' | 'listChatbots' | 'listAgents' | 'createAgent' | 'updateAgent'
> {
  return {
    createChatbot: async (input, options) => {
      validateChatbotCreate(input);
      const parse = objectOf(normalizeChatbot, 'chatbot');
      return caller.run(
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
      caller.run(
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
      return caller.run(
        { kind: 'read', method: 'GET', path, parse: listOf(normalizeAgent, 'agents') },
        options,
      );
    },
    createAgent: async (chatbotUuid, input, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/agent/create`;
      validateAgentCreate(input);
      const parse = objectOf(normalizeAgent, 'agent');
      return caller.run(
        { kind: 'create', method: 'POST', path, body: json(input), parse },
        options,
      );
    },
    updateAgent: async (agentUuid, input, options) => {
      const path = `/api/v1/agent/${seg(agentUuid, 'agentUuid')}/update`;
      validateAgentUpdate(input);
      const parse = objectOf(normalizeAgent, 'agent');
      return caller.run(
        { kind: 'update', method: 'POST', path, body: json(input), parse },
        options,
      );
    },
  };
}

/** Data sources: Q&A pairs, URLs, uploads, renames. */
function sourceEndpoints(
  caller: Caller,
): Pick<ServiceClient, 'addQaSource' | 'addUrlSource' | 'uploadSource' | 'renameSource'> {
  return {
    addQaSource: async (chatbotUuid, input, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/data-source/qa`;
      validateQaSource(input);
      const parse = objectOf(normalizeDataSource, 'data source');
      return caller.run(
        { kind: 'create', method: 'POST', path, body: json(input), parse },
        options,
      );
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
      return caller.run(call, options);
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
      return caller.run(call, options);
    },
    renameSource: async (sourceUuid, input, options) => {
      const path = `/api/v1/data-source/${seg(sourceUuid, 'sourceUuid')}/update`;
      validateSourceRename(input);
      const parse = objectOf(normalizeDataSource, 'data source');
      return caller.run(
        { kind: 'update', method: 'POST', path, body: json(input), parse },
        options,
      );
    },
  };
}

/** Source tags. */
function tagEndpoints(
  caller: Caller,
): Pick<ServiceClient, 'listSourceTags' | 'createSourceTag' | 'updateSourceTag'> {
  return {
    listSourceTags: async (chatbotUuid, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/source-tags`;
      return caller.run(
        { kind: 'read', method: 'GET', path, parse: listOf(normalizeSourceTag, 'source tags') },
        options,
      );
    },
    createSourceTag: async (chatbotUuid, input, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/source-tag/create`;
      validateSourceTagCreate(input);
      const parse = objectOf(normalizeSourceTag, 'source tag');
      return caller.run(
        { kind: 'create', method: 'POST', path, body: json(input), parse },
        options,
      );
    },
    updateSourceTag: async (tagUuid, input, options) => {
      const path = `/api/v1/source-tag/${seg(tagUuid, 'tagUuid')}/update`;
      validateSourceTagUpdate(input);
      const parse = objectOf(normalizeSourceTag, 'source tag');
      return caller.run(
        { kind: 'update', method: 'POST', path, body: json(input), parse },
        options,
      );
    },
  };
}

/** Sessions and their messages (the answer stream among them). */
function sessionEndpoints(
  caller: Caller,
): Pick<ServiceClient, 'createSession' | 'streamMessage' | 'listMessages'> {
  return {
    createSession: async (chatbotUuid, input, options) => {
      const path = `/api/v1/chatbot/${seg(chatbotUuid, 'chatbotUuid')}/session/create`;
      const body = validateSessionCreate(input);
      const parse = objectOf(normalizeSession, 'session');
      return caller.run({ kind: 'create', method: 'POST', path, body: json(body), parse }, options);
    },
    streamMessage: async (sessionUuid, input, options) => {
      const path = `/api/v1/session/${seg(sessionUuid, 'sessionUuid')}/message/stream`;
      validateStream(input);
      return caller.stream({ kind: 'stream', method: 'POST', path, body: json(input) }, options);
    },
    listMessages: async (sessionUuid, options) => {
      const path = `/api/v1/session/${seg(sessionUuid, 'sessionUuid')}/messages`;
      return caller.run(
        { kind: 'read', method: 'GET', path, parse: listOf(normalizeMessage, 'messages') },
        options,
      );
    },
  };
}
