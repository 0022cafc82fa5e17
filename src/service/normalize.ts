// Responses as the rest of chatbridge reads them: documented fields with tidy values (booleans
// from 1/0, JSON text parsed, missing fields defaulted) and every unknown field kept as received.
// Nothing here rejects a value: numbers outside documented ranges pass (bias -10 was seen).
import type {
  Agent,
  AgentMeta,
  AgentVariable,
  Chatbot,
  CiteEntry,
  DataSource,
  HumanEscalationSettings,
  Message,
  Session,
  SourceState,
  SourceTag,
  ToolFunction,
} from './types.js';

type Raw = Record<string, unknown>;

export const isRecord = (v: unknown): v is Raw =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const asRecord = (v: unknown): Raw => (isRecord(v) ? v : {});

export function toBoolean(value: unknown, fallback = false): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 1 || value === '1') return true;
  if (value === 0 || value === '0') return false;
  if (typeof value === 'string') {
    const text = value.trim().toLowerCase();
    if (text === 'true') return true;
    if (text === 'false') return false;
  }
  return fallback;
}

export function toNumber(value: unknown, fallback = 0): number {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    return Number(value);
  }
  return fallback;
}

export function toText(value: unknown, fallback = ''): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return fallback;
}

const toTextList = (value: unknown): string[] =>
  Array.isArray(value) ? value.map((v) => toText(v)) : [];

/**
 * A JSON-text field (meta_json, cite_data_json): accepts JSON text, "", "{}", "null" or an
 * object already. Returns the raw as JSON text and the parsed object ({} when none).
 */
export function parseJsonField(value: unknown): { raw: string; value: Raw } {
  if (isRecord(value)) return { raw: JSON.stringify(value), value };
  if (typeof value !== 'string')
    return { raw: value == null ? '' : JSON.stringify(value), value: {} };
  if (value.trim() === '') return { raw: value, value: {} };
  try {
    return { raw: value, value: asRecord(JSON.parse(value)) };
  } catch {
    return { raw: value, value: {} };
  }
}

/** A numeric meta value (number or numeric text) as a number; dropped when not numeric. */
function optionalNumber(target: Raw, key: string): void {
  if (target[key] !== undefined && target[key] !== null) {
    target[key] = toNumber(target[key], Number.NaN);
    if (Number.isNaN(target[key])) delete target[key];
  }
}

export function normalizeChatbot(input: unknown): Chatbot {
  const raw = asRecord(input);
  const metaIn = isRecord(raw.meta) ? raw.meta : parseJsonField(raw.meta).value;
  const limit = Array.isArray(metaIn.rate_limit) ? metaIn.rate_limit : [];
  return {
    ...raw,
    uuid: toText(raw.uuid),
    name: toText(raw.name),
    created_at: toText(raw.created_at),
    modified_at: toText(raw.modified_at),
    meta: {
      ...metaIn,
      // [0, 0] means "not reported".
      rate_limit: [toNumber(limit[0]), toNumber(limit[1])],
      rate_limit_message: toText(metaIn.rate_limit_message),
      show_citations: toBoolean(metaIn.show_citations),
      visibility: toText(metaIn.visibility),
    },
  };
}

function normalizeAgentMeta(input: unknown): AgentMeta {
  const meta: Raw = { ...(isRecord(input) ? input : parseJsonField(input).value) };
  for (const key of ['temperature', 'bias', 'stickness']) optionalNumber(meta, key);
  if (meta.use_all_sources !== undefined) meta.use_all_sources = toBoolean(meta.use_all_sources);
  return meta as AgentMeta;
}

function normalizeHumanEscalation(input: Raw): HumanEscalationSettings {
  const out: Raw = { ...input };
  for (const key of ['notifications_enabled', 'sound_enabled']) {
    if (out[key] !== undefined) out[key] = toBoolean(out[key]);
  }
  return out as HumanEscalationSettings;
}

export function normalizeToolFunction(input: unknown): ToolFunction {
  const raw = asRecord(input);
  const parameters = asRecord(raw.parameters);
  return {
    ...raw,
    uuid: toText(raw.uuid),
    name: toText(raw.name),
    description: toText(raw.description),
    enabled: toBoolean(raw.enabled),
    external_url: toText(raw.external_url),
    method: toText(raw.method),
    headers: asRecord(raw.headers) as Record<string, string>,
    meta: asRecord(raw.meta),
    parameters: {
      ...parameters,
      type: toText(parameters.type, 'object'),
      properties: asRecord(parameters.properties) as ToolFunction['parameters']['properties'],
      ...(Array.isArray(parameters.required) ? { required: toTextList(parameters.required) } : {}),
    },
    created_at: toText(raw.created_at),
    modified_at: toText(raw.modified_at),
  };
}

function normalizeVariable(input: unknown): AgentVariable {
  const raw = asRecord(input);
  const def = asRecord(raw.default_value);
  return {
    ...raw,
    name: toText(raw.name),
    description: toText(raw.description),
    example: toText(raw.example),
    type: toText(raw.type, 'string'),
    default_value: { ...def, content: toText(def.content), static: toNumber(def.static) },
  } as AgentVariable;
}

export function normalizeAgent(input: unknown): Agent {
  const raw = asRecord(input);
  const agent: Agent = {
    ...raw,
    uuid: toText(raw.uuid),
    name: toText(raw.name),
    description: toText(raw.description),
    prompt: toText(raw.prompt),
    type: toText(raw.type),
    enabled: toBoolean(raw.enabled),
    created_at: toText(raw.created_at),
    modified_at: toText(raw.modified_at),
    meta: normalizeAgentMeta(raw.meta),
    data_source_uuids: toTextList(raw.data_source_uuids),
    tool_functions: Array.isArray(raw.tool_functions)
      ? raw.tool_functions.map(normalizeToolFunction)
      : [],
  };
  if (isRecord(raw.human_escalation_settings)) {
    agent.human_escalation_settings = normalizeHumanEscalation(raw.human_escalation_settings);
  }
  if (Array.isArray(raw.variables)) agent.variables = raw.variables.map(normalizeVariable);
  return agent;
}

/** success is ready; error, error:<reason> and fail are failed; anything else is pending. */
export function classifySourceStatus(status: string): SourceState {
  const s = status.trim().toLowerCase();
  if (s === 'success') return 'ready';
  if (s.startsWith('error') || s === 'fail' || s === 'failed') return 'failed';
  return 'pending';
}

export function normalizeDataSource(input: unknown): DataSource {
  const raw = asRecord(input);
  const meta = parseJsonField(raw.meta_json);
  const status = toText(raw.status);
  return {
    ...raw,
    uuid: toText(raw.uuid),
    title: toText(raw.title),
    type: toText(raw.type),
    status,
    state: classifySourceStatus(status),
    file_name: toText(raw.file_name),
    file_size: toNumber(raw.file_size),
    tokens: toNumber(raw.tokens),
    meta_json: meta.raw,
    meta: meta.value,
    created_at: toText(raw.created_at),
    modified_at: toText(raw.modified_at),
  };
}

export function normalizeSourceTag(input: unknown): SourceTag {
  const raw = asRecord(input);
  return {
    ...raw,
    uuid: toText(raw.uuid),
    name: toText(raw.name),
    color: toText(raw.color),
    data_source_uuids: toTextList(raw.data_source_uuids),
    created_at: toText(raw.created_at),
    modified_at: toText(raw.modified_at),
  };
}

export function normalizeSession(input: unknown): Session {
  const raw = asRecord(input);
  const session: Session = {
    ...raw,
    uuid: toText(raw.uuid),
    created_at: toText(raw.created_at),
    modified_at: toText(raw.modified_at),
  };
  if (isRecord(raw.initial_variables)) {
    session.initial_variables = raw.initial_variables as Session['initial_variables'];
  } else delete session.initial_variables;
  return session;
}

function normalizeCiteEntry(input: Raw): CiteEntry {
  return {
    ...input,
    data_source_uuid: toText(input.data_source_uuid),
    title: toText(input.title),
    text: toText(input.text),
    file_name: toText(input.file_name),
    type: toText(input.type),
  };
}

export function normalizeMessage(input: unknown): Message {
  const raw = asRecord(input);
  const cite = parseJsonField(raw.cite_data_json);
  const meta = parseJsonField(raw.meta_json);
  const citeData: Record<string, CiteEntry> = {};
  for (const [marker, entry] of Object.entries(cite.value)) {
    if (isRecord(entry)) citeData[marker] = normalizeCiteEntry(entry);
  }
  const message: Message = {
    ...raw,
    uuid: toText(raw.uuid),
    query: toText(raw.query),
    response: toText(raw.response),
    cite_data_json: cite.raw,
    cite_data: citeData,
    finish_reason: toText(raw.finish_reason),
    meta_json: meta.raw,
    meta: meta.value,
    created_at: toText(raw.created_at),
    modified_at: toText(raw.modified_at),
  };
  if (raw.error_message != null) message.error_message = toText(raw.error_message);
  return message;
}
