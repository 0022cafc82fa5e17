// Building agents: the default General Q&A agent of a new chatbot, agents created later
// (disabled until enabled), and updates (which return the whole agent, model inside meta).
import type {
  AgentCreateInput,
  AgentUpdateInput,
  AgentVariable,
  AgentVariableInput,
  HumanEscalationInput,
} from '../service/types.js';
import { HttpError } from './http-errors.js';
import { agentTimestamp, newId } from './ids.js';
import type { AgentMetaWire, AgentRecord, HumanEscalationWire } from './records.js';

export const DEFAULT_MODEL = 'gpt-4o-mini-4k';

export const DEFAULT_PROMPT =
  'You are a helpful assistant. Answer the question using only the provided sources, ' +
  'citing them. If the sources do not contain the answer, say so plainly.';

const DEFAULT_ESCALATION: HumanEscalationWire = {
  human_requested_message:
    'I am connecting you with a person from our team. Someone will reply here as soon as possible.',
  live_chat_start_announcement: 'A person from our team has joined the conversation.',
  live_chat_end_announcement: 'The person from our team has left the conversation.',
  monitored_messages: [],
  notifications_enabled: 1,
  sound_enabled: 1,
};

const DEFAULT_CANNED_MESSAGE: Record<string, string> = {
  'pre-canned': 'Thank you for your message.',
  'spam-defense': 'This message looks like spam, so I will not answer it.',
};

const bit = (value: unknown, fallback: 1 | 0): 1 | 0 =>
  value === undefined ? fallback : value === true || value === 1 ? 1 : 0;

function escalationSettings(
  base: HumanEscalationWire,
  change: HumanEscalationInput,
): HumanEscalationWire {
  return {
    human_requested_message: change.human_requested_message ?? base.human_requested_message,
    live_chat_start_announcement:
      change.live_chat_start_announcement ?? base.live_chat_start_announcement,
    live_chat_end_announcement:
      change.live_chat_end_announcement ?? base.live_chat_end_announcement,
    monitored_messages: Array.isArray(change.monitored_messages)
      ? change.monitored_messages
      : base.monitored_messages,
    notifications_enabled: bit(change.notifications_enabled, base.notifications_enabled),
    sound_enabled: bit(change.sound_enabled, base.sound_enabled),
  };
}

/** Only the documented meta keys are kept; the type decides which defaults apply. */
function metaFor(type: string, given: AgentMetaWire): AgentMetaWire {
  const meta: AgentMetaWire = {};
  const keys = [
    'model',
    'temperature',
    'bias',
    'stickness',
    'default_message',
    'tags',
    'use_all_sources',
  ] as const;
  for (const key of keys) {
    if (given[key] !== undefined) (meta as Record<string, unknown>)[key] = given[key];
  }
  if (type !== 'background' && meta.model === undefined) meta.model = DEFAULT_MODEL;
  if (type === 'user-facing') {
    meta.temperature ??= 0.2;
    meta.use_all_sources ??= false;
  }
  if (type !== 'background') {
    meta.bias ??= 0;
    meta.stickness ??= 0;
  }
  if (type === 'pre-canned' || type === 'spam-defense') {
    meta.default_message ??= DEFAULT_CANNED_MESSAGE[type];
  }
  if (type === 'background') meta.tags ??= [];
  return meta;
}

function normaliseVariable(v: AgentVariableInput): AgentVariable {
  return {
    name: v.name,
    description: v.description ?? '',
    example: v.example ?? '',
    type: v.type ?? 'string',
    default_value: {
      content: v.default_value?.content ?? '',
      static: v.default_value?.static ?? 0,
    },
  };
}

export function buildAgent(
  owner: string,
  chatbotUuid: string,
  input: AgentCreateInput,
  nowMs: number,
  enabled = false,
): AgentRecord {
  const at = agentTimestamp(nowMs);
  const given: AgentMetaWire = { ...(input.meta ?? {}) };
  if (input.model !== undefined) given.model = input.model;
  if (input.temperature !== undefined) given.temperature = input.temperature;
  const record: AgentRecord = {
    owner,
    chatbotUuid,
    uuid: newId(),
    name: input.name,
    description: input.description ?? '',
    prompt: input.prompt ?? '',
    type: input.type,
    enabled,
    created_at: at,
    modified_at: at,
    meta: metaFor(input.type, given),
    data_source_uuids: [],
    tool_functions: [],
    variables: [],
  };
  if (input.type === 'human-escalation') record.human_escalation_settings = DEFAULT_ESCALATION;
  return record;
}

export function buildDefaultAgent(owner: string, chatbotUuid: string, nowMs: number): AgentRecord {
  return buildAgent(
    owner,
    chatbotUuid,
    {
      name: 'General Q&A',
      type: 'user-facing',
      description: 'Answers general questions from all of the chatbot’s data sources.',
      prompt: DEFAULT_PROMPT,
      meta: { use_all_sources: true },
    },
    nowMs,
    true,
  );
}

/** Applies a validated update; data_source_uuids must already be checked against the chatbot. */
export function applyAgentUpdate(
  agent: AgentRecord,
  input: AgentUpdateInput,
  nowMs: number,
): AgentRecord {
  const next: AgentRecord = { ...agent, meta: { ...agent.meta, ...(input.meta ?? {}) } };
  if (input.name !== undefined) next.name = input.name;
  if (input.description !== undefined) next.description = input.description;
  if (input.prompt !== undefined) next.prompt = input.prompt;
  if (input.enabled !== undefined) next.enabled = input.enabled;
  if (input.variables !== undefined) next.variables = input.variables.map(normaliseVariable);
  if (input.data_source_uuids !== undefined) {
    next.data_source_uuids = [...new Set(input.data_source_uuids)];
  }
  if (input.model !== undefined) next.meta.model = input.model;
  if (input.temperature !== undefined) next.meta.temperature = input.temperature;
  if (input.use_all_sources !== undefined) next.meta.use_all_sources = input.use_all_sources;
  if (input.tags !== undefined) next.meta.tags = input.tags;
  if (input.human_escalation_settings !== undefined) {
    if (agent.type !== 'human-escalation') {
      throw HttpError.badRequest(
        'human_escalation_settings',
        'applies only to human-escalation agents',
      );
    }
    next.human_escalation_settings = escalationSettings(
      agent.human_escalation_settings ?? DEFAULT_ESCALATION,
      input.human_escalation_settings,
    );
  }
  next.meta = metaFor(agent.type, next.meta);
  next.modified_at = agentTimestamp(nowMs);
  return next;
}
