// Rows of the local service's tables and the records they become (see db/schema.ts).
import type { AgentTag, AgentVariable, FlatVariables } from '../service/types.js';
import type {
  AgentMetaWire,
  AgentRecord,
  ChatbotRecord,
  HumanEscalationWire,
  MessageWire,
  SessionRecord,
  SourceRecord,
  SourceTagRecord,
} from './records.js';

export interface ChatbotRow {
  id: number;
  uuid: string;
  owner: string;
  name: string;
  visibility: string;
  rate_limit_count: number;
  rate_limit_seconds: number;
  rate_limit_message: string;
  show_citations: number;
  created_at: string;
  modified_at: string;
}

export function chatbotRecord(row: ChatbotRow): ChatbotRecord {
  return {
    owner: row.owner,
    uuid: row.uuid,
    name: row.name,
    created_at: row.created_at,
    modified_at: row.modified_at,
    meta: {
      visibility: row.visibility,
      rate_limit: [row.rate_limit_count, row.rate_limit_seconds],
      rate_limit_message: row.rate_limit_message,
      show_citations: row.show_citations === 1,
    },
  };
}

/** An agent row with its chatbot's uuid and owner joined in. */
export interface AgentRow {
  id: number;
  uuid: string;
  chatbot_uuid: string;
  owner: string;
  name: string;
  description: string;
  prompt: string;
  type: string;
  enabled: number;
  meta_json: string;
  human_escalation_json: string | null;
  tool_functions_json: string;
  variables_json: string;
  created_at: string;
  modified_at: string;
}

export function agentRecord(row: AgentRow, sourceUuids: string[]): AgentRecord {
  const record: AgentRecord = {
    owner: row.owner,
    chatbotUuid: row.chatbot_uuid,
    uuid: row.uuid,
    name: row.name,
    description: row.description,
    prompt: row.prompt,
    type: row.type,
    enabled: row.enabled === 1,
    created_at: row.created_at,
    modified_at: row.modified_at,
    meta: JSON.parse(row.meta_json) as AgentMetaWire & { tags?: AgentTag[] },
    data_source_uuids: sourceUuids,
    tool_functions: JSON.parse(row.tool_functions_json) as unknown[],
    variables: JSON.parse(row.variables_json) as AgentVariable[],
  };
  if (row.human_escalation_json !== null) {
    record.human_escalation_settings = JSON.parse(row.human_escalation_json) as HumanEscalationWire;
  }
  return record;
}

export interface SourceRow {
  id: number;
  uuid: string;
  chatbot_id: number;
  chatbot_uuid: string;
  owner: string;
  title: string;
  type: string;
  status: string;
  file_name: string;
  file_size: number;
  tokens: number;
  meta_json: string;
  error_message: string | null;
  content_hash: string | null;
  url: string | null;
  link: string | null;
  created_at: string;
  modified_at: string;
}

export function sourceRecord(row: SourceRow): SourceRecord {
  const record: SourceRecord = {
    owner: row.owner,
    chatbotUuid: row.chatbot_uuid,
    uuid: row.uuid,
    title: row.title,
    type: row.type,
    status: row.status,
    file_name: row.file_name,
    file_size: row.file_size,
    tokens: row.tokens,
    meta_json: row.meta_json,
    created_at: row.created_at,
    modified_at: row.modified_at,
  };
  if (row.error_message !== null) record.error_message = row.error_message;
  if (row.content_hash !== null) record.contentHash = row.content_hash;
  if (row.url !== null) record.url = row.url;
  if (row.link !== null) record.link = row.link;
  return record;
}

export interface TagRow {
  id: number;
  uuid: string;
  chatbot_uuid: string;
  owner: string;
  name: string;
  color: string;
  created_at: string;
  modified_at: string;
}

export function tagRecord(row: TagRow, sourceUuids: string[]): SourceTagRecord {
  return {
    owner: row.owner,
    chatbotUuid: row.chatbot_uuid,
    uuid: row.uuid,
    name: row.name,
    color: row.color,
    data_source_uuids: sourceUuids,
    created_at: row.created_at,
    modified_at: row.modified_at,
  };
}

export interface SessionRow {
  id: number;
  uuid: string;
  chatbot_uuid: string;
  owner: string;
  initial_variables_json: string | null;
  last_agent_uuid: string | null;
  created_at: string;
  modified_at: string;
}

export function sessionRecord(row: SessionRow): SessionRecord {
  const record: SessionRecord = {
    owner: row.owner,
    chatbotUuid: row.chatbot_uuid,
    uuid: row.uuid,
    created_at: row.created_at,
    modified_at: row.modified_at,
  };
  if (row.initial_variables_json !== null) {
    record.initial_variables = JSON.parse(row.initial_variables_json) as FlatVariables;
  }
  if (row.last_agent_uuid !== null) record.lastAgentUuid = row.last_agent_uuid;
  return record;
}

export interface MessageRow {
  uuid: string;
  query: string;
  response: string;
  cite_data_json: string;
  finish_reason: string;
  meta_json: string;
  error_message: string | null;
  created_at: string;
  modified_at: string;
}

/** A stored message as the interface shows it (error_message only when the answer failed). */
export type StoredMessage = MessageWire & { error_message?: string };

export function messageWire(row: MessageRow): StoredMessage {
  const message: StoredMessage = {
    uuid: row.uuid,
    query: row.query,
    response: row.response,
    cite_data_json: row.cite_data_json,
    finish_reason: row.finish_reason,
    meta_json: row.meta_json,
    created_at: row.created_at,
    modified_at: row.modified_at,
  };
  if (row.error_message !== null) message.error_message = row.error_message;
  return message;
}
