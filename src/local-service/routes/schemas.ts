// Fastify JSON schemas for every route, derived from the interface's rules
// (src/service/rules/bodies.ts) with z.toJSONSchema: Ajv checks the shape before a handler
// runs; refinements JSON Schema cannot say (an http(s) address) are checked by the handler's
// rule, which also words any failure (see schema-errors.ts) so the service and the client say
// the same thing about the same bad value.
import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import * as rules from '../../service/rules/bodies.js';

/**
 * Draft-07, the dialect Fastify's Ajv speaks; extra fields stay allowed (input view). A custom
 * check (z.custom) has no JSON form of its own: its .meta() says it, or it is left open here
 * and the handler's rule still checks it.
 */
export function jsonSchemaOf(rule: z.core.$ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...schema } = z.toJSONSchema(rule, {
    target: 'draft-7',
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return schema;
}

const params = jsonSchemaOf(rules.uuidParams);

export const schemas = {
  chatbotCreate: { body: jsonSchemaOf(rules.chatbotCreate) },
  byUuid: { params },
  agentCreate: { params, body: jsonSchemaOf(rules.agentCreate) },
  agentUpdate: { params, body: jsonSchemaOf(rules.agentUpdate) },
  qaSource: { params, body: jsonSchemaOf(rules.qaSource) },
  urlSource: { params, body: jsonSchemaOf(rules.urlSource) },
  sourceRename: { params, body: jsonSchemaOf(rules.sourceRename) },
  tagCreate: { params, body: jsonSchemaOf(rules.sourceTagCreate) },
  tagUpdate: { params, body: jsonSchemaOf(rules.sourceTagUpdate) },
  sessionCreate: { params, body: jsonSchemaOf(rules.sessionCreate) },
  stream: { params, body: jsonSchemaOf(rules.stream) },
} satisfies Record<string, FastifySchema>;

/**
 * Ajv settings: check, never change what was sent (no coercion, defaults or removal); strict,
 * so a schema Ajv would misread stops the service at start instead of passing bad bodies.
 */
export const AJV_OPTIONS = {
  strict: true,
  allowUnionTypes: true, // a flat value is ["string", "number", "boolean", "null"]
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
  allErrors: false,
} as const;
