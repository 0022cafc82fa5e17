// Rules for what is sent to the service, checked before sending. Shared by the client (which
// refuses to send a bad value) and the local service (which answers 400 for one). Each failure
// is a ServiceError of kind "validation" naming the field and the rule.
import { ServiceError } from './errors.js';
import {
  AGENT_TYPES,
  LIMITS,
  VISIBILITIES,
  type AgentCreateInput,
  type AgentMetaInput,
  type AgentUpdateInput,
  type ChatbotCreateInput,
  type QaSourceInput,
  type SessionCreateInput,
  type SourceRenameInput,
  type SourceTagCreateInput,
  type SourceTagUpdateInput,
  type StreamInput,
  type UploadSourceInput,
  type UrlSourceInput,
} from './types.js';

const fail = (field: string, rule: string): never => {
  throw ServiceError.validation(field, rule);
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function requireObject(value: unknown, field: string): Record<string, unknown> {
  if (!isRecord(value)) fail(field, 'must be an object');
  return value as Record<string, unknown>;
}

export function requireText(value: unknown, field: string): string {
  if (typeof value !== 'string') return fail(field, 'is required and must be a string');
  if (value.trim() === '') return fail(field, 'must not be empty');
  return value;
}

function optionalString(value: unknown, field: string): void {
  if (value !== undefined && typeof value !== 'string') fail(field, 'must be a string');
}

function optionalBoolean(value: unknown, field: string): void {
  if (value !== undefined && typeof value !== 'boolean') fail(field, 'must be true or false');
}

function optionalUnit(value: unknown, field: string): void {
  if (value === undefined) return;
  const { min, max } = LIMITS.unitInterval;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    fail(field, `must be a number from ${min} to ${max}`);
  }
}

function wholeNumberIn(value: unknown, field: string, min: number, max: number): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    fail(field, `must be a whole number from ${min} to ${max}`);
  }
}

export function requireId(value: unknown, field: string): string {
  // Identifiers are 32 hex characters in practice, dashed UUIDs elsewhere: any non-empty string.
  if (typeof value !== 'string' || value.trim() === '') fail(field, 'must be a non-empty id');
  if (/[/?#\s]/.test(value as string)) fail(field, 'must not contain "/", "?", "#" or spaces');
  return value as string;
}

const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;

export function requireColour(value: unknown, field: string): string {
  if (typeof value !== 'string' || !HEX_COLOUR.test(value)) {
    fail(field, 'must be "#" followed by six hex digits, like #1a2b3c');
  }
  return value as string;
}

export function requireHttpUrl(value: unknown, field: string): string {
  const text = requireText(value, field);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail(field, 'must be an absolute http(s) address');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    fail(field, 'must use http or https');
  }
  return text;
}

function optionalIdList(value: unknown, field: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) fail(field, 'must be a list of ids');
  (value as unknown[]).forEach((id, i) => requireId(id, `${field}[${i}]`));
}

export function validateRateLimit(value: unknown, field = 'rate_limit'): [number, number] {
  if (!Array.isArray(value) || value.length !== 2) {
    return fail(field, 'must be [count, seconds]');
  }
  const { rateLimitCount: c, rateLimitWindowSeconds: w } = LIMITS;
  wholeNumberIn(value[0], `${field}[0] (messages)`, c.min, c.max);
  wholeNumberIn(value[1], `${field}[1] (seconds)`, w.min, w.max);
  return [value[0] as number, value[1] as number];
}

export function validateChatbotCreate(input: unknown): ChatbotCreateInput {
  const body = requireObject(input, 'body');
  requireText(body.name, 'name');
  if (body.visibility !== undefined && !VISIBILITIES.includes(body.visibility as never)) {
    fail('visibility', `must be one of ${VISIBILITIES.join(', ')}`);
  }
  if (body.rate_limit !== undefined) validateRateLimit(body.rate_limit);
  optionalString(body.rate_limit_message, 'rate_limit_message');
  optionalBoolean(body.show_citations, 'show_citations');
  return body as unknown as ChatbotCreateInput;
}

function validateTags(value: unknown, field: string): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) fail(field, 'must be a list of {name, color, criteria}');
  (value as unknown[]).forEach((tag, i) => {
    const t = requireObject(tag, `${field}[${i}]`);
    requireText(t.name, `${field}[${i}].name`);
    requireColour(t.color, `${field}[${i}].color`);
    if (typeof t.criteria !== 'string') fail(`${field}[${i}].criteria`, 'must be a string');
  });
}

export function validateAgentMeta(input: unknown, field = 'meta'): AgentMetaInput {
  const meta = requireObject(input, field);
  if (meta.model !== undefined) requireText(meta.model, `${field}.model`);
  optionalUnit(meta.temperature, `${field}.temperature`);
  optionalUnit(meta.bias, `${field}.bias`);
  optionalUnit(meta.stickness, `${field}.stickness`);
  optionalString(meta.default_message, `${field}.default_message`);
  validateTags(meta.tags, `${field}.tags`);
  optionalBoolean(meta.use_all_sources, `${field}.use_all_sources`);
  return meta as AgentMetaInput;
}

export function validateAgentCreate(input: unknown): AgentCreateInput {
  const body = requireObject(input, 'body');
  requireText(body.name, 'name');
  if (!AGENT_TYPES.includes(body.type as never)) {
    fail('type', `must be one of ${AGENT_TYPES.join(', ')}`);
  }
  optionalString(body.description, 'description');
  optionalString(body.prompt, 'prompt');
  optionalUnit(body.temperature, 'temperature');
  if (body.model !== undefined) requireText(body.model, 'model');
  if (body.meta !== undefined) validateAgentMeta(body.meta);
  return body as unknown as AgentCreateInput;
}

function validateVariables(value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) fail('variables', 'must be a list of variables');
  (value as unknown[]).forEach((variable, i) => {
    const v = requireObject(variable, `variables[${i}]`);
    requireText(v.name, `variables[${i}].name`);
    for (const key of ['description', 'example', 'type'] as const) {
      optionalString(v[key], `variables[${i}].${key}`);
    }
    if (v.default_value !== undefined) {
      const d = requireObject(v.default_value, `variables[${i}].default_value`);
      optionalString(d.content, `variables[${i}].default_value.content`);
      if (d.static !== undefined && d.static !== 0 && d.static !== 1) {
        fail(`variables[${i}].default_value.static`, 'must be 0 or 1');
      }
    }
  });
}

export function validateAgentUpdate(input: unknown): AgentUpdateInput {
  const body = requireObject(input, 'body');
  if (body.name !== undefined) requireText(body.name, 'name');
  optionalString(body.description, 'description');
  optionalString(body.prompt, 'prompt');
  if (body.model !== undefined) requireText(body.model, 'model');
  optionalBoolean(body.enabled, 'enabled');
  validateVariables(body.variables);
  optionalIdList(body.data_source_uuids, 'data_source_uuids');
  optionalUnit(body.temperature, 'temperature');
  optionalBoolean(body.use_all_sources, 'use_all_sources');
  validateTags(body.tags, 'tags');
  if (body.human_escalation_settings !== undefined) {
    const h = requireObject(body.human_escalation_settings, 'human_escalation_settings');
    for (const key of [
      'human_requested_message',
      'live_chat_start_announcement',
      'live_chat_end_announcement',
    ]) {
      optionalString(h[key], `human_escalation_settings.${key}`);
    }
  }
  if (body.meta !== undefined) validateAgentMeta(body.meta);
  return body as AgentUpdateInput;
}

export function validateQaSource(input: unknown): QaSourceInput {
  const body = requireObject(input, 'body');
  requireText(body.question, 'question');
  requireText(body.answer, 'answer');
  return body as unknown as QaSourceInput;
}

export function validateUrlSource(input: unknown): UrlSourceInput {
  const body = requireObject(input, 'body');
  requireHttpUrl(body.url, 'url');
  return body as unknown as UrlSourceInput;
}

export function validateUpload(input: unknown): UploadSourceInput {
  const body = requireObject(input, 'body');
  const file = body.file;
  const size =
    file instanceof Uint8Array ? file.byteLength : file instanceof Blob ? file.size : undefined;
  if (size === undefined) fail('file', 'is required (the bytes of the file to upload)');
  if (size === 0) fail('file', 'must not be empty');
  requireText(body.file_name, 'file_name');
  if (body.reference_source_link !== undefined) {
    requireHttpUrl(body.reference_source_link, 'reference_source_link');
  }
  if (body.meta !== undefined) requireObject(body.meta, 'meta');
  return body as unknown as UploadSourceInput;
}

export function validateSourceRename(input: unknown): SourceRenameInput {
  const body = requireObject(input, 'body');
  requireText(body.title, 'title');
  return body as unknown as SourceRenameInput;
}

export function validateSourceTagCreate(input: unknown): SourceTagCreateInput {
  const body = requireObject(input, 'body');
  requireText(body.name, 'name');
  requireColour(body.color, 'color');
  optionalIdList(body.data_source_uuids, 'data_source_uuids');
  return body as unknown as SourceTagCreateInput;
}

export function validateSourceTagUpdate(input: unknown): SourceTagUpdateInput {
  const body = requireObject(input, 'body');
  if (body.name !== undefined) requireText(body.name, 'name');
  if (body.color !== undefined) requireColour(body.color, 'color');
  optionalIdList(body.data_source_uuids, 'data_source_uuids');
  return body as SourceTagUpdateInput;
}

export function validateSessionCreate(input: unknown): SessionCreateInput {
  if (input === undefined) return {};
  const body = requireObject(input, 'body');
  if (body.initial_variables === undefined) return body as SessionCreateInput;
  const vars = requireObject(body.initial_variables, 'initial_variables');
  for (const [key, value] of Object.entries(vars)) {
    if (value !== null && typeof value === 'object') {
      fail(
        `initial_variables.${key}`,
        'must be a string, number, boolean or null (flat, one level deep)',
      );
    }
  }
  return body as SessionCreateInput;
}

export function validateStream(input: unknown): StreamInput {
  const body = requireObject(input, 'body');
  requireText(body.query, 'query');
  return body as unknown as StreamInput;
}
