// Checks every request the bridge made to the fake Discord against Discord's OpenAPI description
// (openapi-subset.json, kept from discord/discord-api-spec with its LICENSE; extract-spec.ts
// says which operations): the route and method must be a documented operation, and a JSON body
// must match the operation's request schema (validated with ajv). One rule the spec cannot say
// is the bridge's own: every message it posts or edits carries allowed_mentions {parse: []}.
// FakeDiscord.close() runs it, so every Discord test checks what it sent.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { tally } from '../tally.js';

export interface RecordedRequest {
  method: string;
  /** The path below /api/v10, e.g. /channels/123/messages. */
  path: string;
  body: unknown;
}

type Json = Record<string, unknown>;

const spec = JSON.parse(
  readFileSync(resolve(import.meta.dirname, 'openapi-subset.json'), 'utf8'),
) as { paths: Record<string, Json> };

// Compiling is most of this checker's cost (a message's schema took 0.25 s): with inlineRefs
// off, a component several operations use (a message's embeds, its components) is compiled once
// as its own function, not again inside each; code.optimize off skips ajv's passes over the
// generated code (about 40% of the compile), which would speed up validating, and a run
// validates a few hundred bodies.
const ajv = new Ajv2020({
  strict: false,
  allErrors: true,
  validateSchema: false,
  logger: false,
  inlineRefs: false,
  code: { optimize: false },
});
// ajv-formats ships CommonJS with its function as the default export.
const addFormats = addFormatsModule as unknown as (instance: Ajv2020) => void;
addFormats(ajv);
ajv.addSchema(spec, 'discord');

const pointer = (part: string) => part.replace(/~/g, '~0').replace(/\//g, '~1');

interface Operation {
  template: string;
  pattern: RegExp;
  method: string;
  /** Where the request body's schema is in the spec (a JSON pointer ajv resolves). */
  bodySchema?: string;
}

/** The body's validator, compiled on first use (a run uses few operations); ajv keeps it. */
function bodyValidator(operation: Operation): ValidateFunction | undefined {
  if (operation.bodySchema === undefined) return undefined;
  const validate = ajv.getSchema(operation.bodySchema);
  if (!validate) throw new Error(`Discord conformance: no schema at ${operation.bodySchema}`);
  return validate;
}

const operations: Operation[] = Object.entries(spec.paths).flatMap(([template, item]) => {
  const pattern = new RegExp(
    `^${template
      .split(/(\{[^}]+\})/)
      .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&')))
      .join('')}$`,
  );
  return Object.keys(item)
    .filter((method) => method !== 'parameters')
    .map((method) => {
      const body = ((item[method] as Json).requestBody as Json | undefined)?.content as
        Json | undefined;
      const json = body?.['application/json'] ? 'application/json' : undefined;
      const ref = `discord#/paths/${pointer(template)}/${method}/requestBody/content/${pointer(json ?? '')}/schema`;
      return {
        template,
        pattern,
        method: method.toUpperCase(),
        ...(json ? { bodySchema: ref } : {}),
      };
    });
});

// Literal routes before templated ones ("/users/@me" is not "/users/{user_id}").
operations.sort((a, b) => a.template.split('{').length - b.template.split('{').length);

const MESSAGE_BODY =
  /^(POST \/channels\/\{channel_id\}\/messages|PATCH \/channels\/\{channel_id\}\/messages\/\{message_id\}|POST \/webhooks\/\{webhook_id\}\/\{webhook_token\}|PATCH \/webhooks\/\{webhook_id\}\/\{webhook_token\}\/messages\/@original)$/;

/**
 * Discord's own documentation and discord-api-types give a command's default_member_permissions
 * as a string (a permission bit set, "32"); the OpenAPI description types it as an integer. Both
 * are published and Discord takes either: a decimal string is read as the integer it spells.
 */
function permissionsAsIntegers(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(permissionsAsIntegers);
  if (!body || typeof body !== 'object') return body;
  const record = body as Json;
  const value = record.default_member_permissions;
  return typeof value === 'string' && /^\d+$/.test(value)
    ? { ...record, default_member_permissions: Number(value) }
    : record;
}

/** The problems of one request; none when it conforms. */
export function checkRequest(request: RecordedRequest): string[] {
  const path = request.path.split('?')[0]!;
  const operation = operations.find((op) => op.method === request.method && op.pattern.test(path));
  const name = `${request.method} ${path}`;
  if (!operation) return [`${name}: not an operation of Discord's API description`];
  const problems: string[] = [];
  let body = request.body;
  if (body && typeof body === 'object' && 'files' in body) {
    // A multipart body as the fake read it: payload_json's fields plus the files themselves.
    const { files: _files, ...rest } = body as Json;
    body = rest;
  }
  body = permissionsAsIntegers(body);
  const hasBody = body !== undefined && body !== null && !(typeof body === 'string' && body === '');
  const validate = bodyValidator(operation);
  if (hasBody && validate && !validate(body)) {
    for (const error of validate.errors ?? []) {
      problems.push(`${name}: ${error.instancePath || '(body)'} ${error.message ?? ''}`.trim());
    }
  }
  const route = `${operation.method} ${operation.template}`;
  if (MESSAGE_BODY.test(route) && hasBody) {
    const mentions = (body as { allowed_mentions?: { parse?: unknown } }).allowed_mentions;
    if (!mentions || !Array.isArray(mentions.parse) || mentions.parse.length !== 0) {
      problems.push(`${name}: a message without allowed_mentions {parse: []}`);
    }
  }
  return problems;
}

/** Throws with every problem of these requests; counts them in the run's tally either way. */
export function assertDiscordConformance(requests: readonly RecordedRequest[]): void {
  const problems = requests.flatMap((request) => checkRequest(request));
  tally('discord', requests.length, problems);
  if (problems.length > 0) {
    throw new Error(`Discord conformance: ${problems.length} violations\n${problems.join('\n')}`);
  }
}
