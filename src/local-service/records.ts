// What the service stores and what it answers. A stored record keeps its owner (a hash of the
// API key, never the key) and its chatbot; the wire shape picks the documented fields only, so
// nothing internal leaks into a response.
import type { AgentTag, AgentVariable, FlatVariables } from '../service/types.js';

export interface ChatbotMetaWire {
  visibility: string;
  rate_limit: [number, number];
  rate_limit_message: string;
  show_citations: boolean;
}

export interface ChatbotWire {
  uuid: string;
  name: string;
  created_at: string;
  modified_at: string;
  meta: ChatbotMetaWire;
}

export interface AgentMetaWire {
  model?: string;
  temperature?: number;
  bias?: number;
  stickness?: number;
  default_message?: string;
  tags?: AgentTag[];
  use_all_sources?: boolean;
}

export interface HumanEscalationWire {
  human_requested_message: string;
  live_chat_start_announcement: string;
  live_chat_end_announcement: string;
  monitored_messages: unknown[];
  notifications_enabled: 1 | 0;
  sound_enabled: 1 | 0;
}

export interface AgentWire {
  uuid: string;
  name: string;
  description: string;
  prompt: string;
  type: string;
  enabled: boolean;
  created_at: string;
  modified_at: string;
  meta: AgentMetaWire;
  data_source_uuids: string[];
  human_escalation_settings?: HumanEscalationWire;
  tool_functions: unknown[];
  variables?: AgentVariable[];
}

export interface DataSourceWire {
  uuid: string;
  title: string;
  type: string;
  status: string;
  file_name: string;
  file_size: number;
  tokens: number;
  meta_json: string;
  created_at: string;
  modified_at: string;
  /** Why ingestion failed, when status is "error". */
  error_message?: string;
}

export interface SourceTagWire {
  uuid: string;
  name: string;
  color: string;
  data_source_uuids: string[];
  created_at: string;
  modified_at: string;
}

export interface SessionWire {
  uuid: string;
  created_at: string;
  modified_at: string;
  initial_variables?: FlatVariables;
}

export interface MessageWire {
  uuid: string;
  query: string;
  response: string;
  cite_data_json: string;
  finish_reason: string;
  meta_json: string;
  created_at: string;
  modified_at: string;
}

/** Ownership carried by every stored record. */
export interface Owned {
  owner: string;
  chatbotUuid: string;
}

export type ChatbotRecord = ChatbotWire & { owner: string };
export type AgentRecord = AgentWire & Owned & { variables: AgentVariable[] };
export type SourceRecord = DataSourceWire &
  Owned & {
    contentHash?: string;
    /** The address a URL source is fetched from. */
    url?: string;
    /** The link its passages cite (a URL source's address, an upload's reference link). */
    link?: string;
  };
export type SourceTagRecord = SourceTagWire & Owned;
export type SessionRecord = SessionWire & Owned & { lastAgentUuid?: string };

export function chatbotWire(r: ChatbotRecord): ChatbotWire {
  const { uuid, name, created_at, modified_at, meta } = r;
  return { uuid, name, created_at, modified_at, meta };
}

/** Create and update responses carry variables; list items do not. */
export function agentWire(r: AgentRecord, withVariables: boolean): AgentWire {
  const wire: AgentWire = {
    uuid: r.uuid,
    name: r.name,
    description: r.description,
    prompt: r.prompt,
    type: r.type,
    enabled: r.enabled,
    created_at: r.created_at,
    modified_at: r.modified_at,
    meta: r.meta,
    data_source_uuids: r.data_source_uuids,
    tool_functions: r.tool_functions,
  };
  if (r.human_escalation_settings) wire.human_escalation_settings = r.human_escalation_settings;
  if (withVariables) wire.variables = r.variables;
  return wire;
}

export function sourceWire(r: SourceRecord): DataSourceWire {
  const wire: DataSourceWire = {
    uuid: r.uuid,
    title: r.title,
    type: r.type,
    status: r.status,
    file_name: r.file_name,
    file_size: r.file_size,
    tokens: r.tokens,
    meta_json: r.meta_json,
    created_at: r.created_at,
    modified_at: r.modified_at,
  };
  if (r.error_message !== undefined) wire.error_message = r.error_message;
  return wire;
}

export function tagWire(r: SourceTagRecord): SourceTagWire {
  const { uuid, name, color, data_source_uuids, created_at, modified_at } = r;
  return { uuid, name, color, data_source_uuids, created_at, modified_at };
}

export function sessionWire(r: SessionRecord): SessionWire {
  const wire: SessionWire = { uuid: r.uuid, created_at: r.created_at, modified_at: r.modified_at };
  if (r.initial_variables !== undefined) wire.initial_variables = r.initial_variables;
  return wire;
}
