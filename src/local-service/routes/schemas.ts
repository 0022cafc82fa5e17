// Fastify JSON schemas for every route: the shape (params are ids; a body is an object whose
// known properties have the right JSON types). The detailed rules (ranges, enums, colours,
// flatness) stay in src/service/validate.ts, which the handlers run after the schema passes,
// and which also words a schema failure (see schema-errors.ts) so the service and the client
// say the same thing about the same bad value.
import type { FastifySchema } from 'fastify';

type Json = Record<string, unknown>;

const str = { type: 'string' };
const num = { type: 'number' };
const bool = { type: 'boolean' };
const arr = { type: 'array' };
const obj = { type: 'object' };

/** An id in a path: non-empty, no "/", "?", "#" or spaces (as requireId says). */
export const ID_PATTERN = '^[^/?#\\s]+$';
const uuidParams: Json = {
  type: 'object',
  required: ['uuid'],
  properties: { uuid: { type: 'string', minLength: 1, pattern: ID_PATTERN } },
};

const body = (properties: Json, required: string[] = []): Json => ({
  type: 'object',
  properties,
  ...(required.length > 0 ? { required } : {}),
});

export const schemas = {
  chatbotCreate: {
    body: body(
      {
        name: str,
        visibility: str,
        rate_limit: arr,
        rate_limit_message: str,
        show_citations: bool,
      },
      ['name'],
    ),
  },
  byUuid: { params: uuidParams },
  agentCreate: {
    params: uuidParams,
    body: body(
      {
        name: str,
        type: str,
        description: str,
        prompt: str,
        temperature: num,
        model: str,
        meta: obj,
      },
      ['name', 'type'],
    ),
  },
  agentUpdate: {
    params: uuidParams,
    body: body({
      name: str,
      description: str,
      prompt: str,
      model: str,
      enabled: bool,
      variables: arr,
      data_source_uuids: { type: 'array', items: str },
      temperature: num,
      use_all_sources: bool,
      tags: arr,
      human_escalation_settings: obj,
      meta: obj,
    }),
  },
  qaSource: {
    params: uuidParams,
    body: body({ question: str, answer: str }, ['question', 'answer']),
  },
  urlSource: { params: uuidParams, body: body({ url: str }, ['url']) },
  sourceRename: { params: uuidParams, body: body({ title: str }, ['title']) },
  tagCreate: {
    params: uuidParams,
    body: body({ name: str, color: str, data_source_uuids: { type: 'array', items: str } }, [
      'name',
      'color',
    ]),
  },
  tagUpdate: {
    params: uuidParams,
    body: body({ name: str, color: str, data_source_uuids: { type: 'array', items: str } }),
  },
  sessionCreate: { params: uuidParams, body: body({ initial_variables: obj }) },
  stream: { params: uuidParams, body: body({ query: str }, ['query']) },
} satisfies Record<string, FastifySchema>;

/** Ajv settings: check, never change what was sent (no coercion, defaults or removal). */
export const AJV_OPTIONS = {
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  allErrors: false,
} as const;
