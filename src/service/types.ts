// Resources of the chatbot service as the client hands them on: the documented fields with
// normalised values (booleans from 1/0, JSON text parsed), plus every unknown field as received.

export {
  AGENT_TYPES,
  LIMITS,
  VISIBILITIES,
  type AgentType,
  type Visibility,
} from './rules/vocabulary.js';

/** Extra fields a response carried that the contract does not name. Never rejected. */
export type Extra = Record<string, unknown>;

export interface ChatbotMeta extends Extra {
  rate_limit: [number, number];
  rate_limit_message: string;
  show_citations: boolean;
  /** One of VISIBILITIES when sent by us; kept as received otherwise. */
  visibility: string;
}

export interface Chatbot extends Extra {
  uuid: string;
  name: string;
  created_at: string;
  modified_at: string;
  meta: ChatbotMeta;
}

export interface AgentTag {
  name: string;
  color: string;
  criteria: string;
}

export interface AgentMeta extends Extra {
  model?: string;
  temperature?: number;
  bias?: number;
  /** Spelled this way by the service. */
  stickness?: number;
  default_message?: string;
  tags?: AgentTag[];
  use_all_sources?: boolean;
}

export interface HumanEscalationSettings extends Extra {
  human_requested_message?: string;
  live_chat_start_announcement?: string;
  live_chat_end_announcement?: string;
  monitored_messages?: unknown[];
  notifications_enabled?: boolean;
  sound_enabled?: boolean;
}

export interface ToolFunctionParameters {
  type: 'object' | string;
  properties: Record<string, { description?: string; type?: string } & Extra>;
  required?: string[];
}

export interface ToolFunction extends Extra {
  uuid: string;
  name: string;
  description: string;
  enabled: boolean;
  external_url: string;
  method: string;
  headers: Record<string, string>;
  meta: Extra;
  parameters: ToolFunctionParameters;
  created_at: string;
  modified_at: string;
}

export interface AgentVariable {
  name: string;
  description: string;
  example: string;
  type: string;
  default_value: { content: string; static: number };
}

export interface Agent extends Extra {
  uuid: string;
  name: string;
  description: string;
  prompt: string;
  /** One of AGENT_TYPES when sent by us; an open set in responses. */
  type: string;
  enabled: boolean;
  created_at: string;
  modified_at: string;
  meta: AgentMeta;
  data_source_uuids: string[];
  human_escalation_settings?: HumanEscalationSettings;
  tool_functions: ToolFunction[];
  /** Present in create and update responses, absent from list items. */
  variables?: AgentVariable[];
}

/** Data source status, classified from the open set of values seen (field notes). */
export type SourceState = 'ready' | 'pending' | 'failed';

export interface DataSource extends Extra {
  uuid: string;
  title: string;
  /** Open set: qa, link, file, upload, url, google-drive, table, image, video, … */
  type: string;
  status: string;
  /** Classified from status. */
  state: SourceState;
  file_name: string;
  file_size: number;
  tokens: number;
  /** As received, as JSON text. */
  meta_json: string;
  /** meta_json parsed ({} when empty, "null" or not an object). */
  meta: Extra;
  created_at: string;
  modified_at: string;
}

export interface SourceTag extends Extra {
  uuid: string;
  name: string;
  color: string;
  data_source_uuids: string[];
  created_at: string;
  modified_at: string;
}

export type FlatValue = string | number | boolean | null;
export type FlatVariables = Record<string, FlatValue>;

export interface Session extends Extra {
  uuid: string;
  created_at: string;
  modified_at: string;
  initial_variables?: FlatVariables;
}

/** One entry of a message's cite_data_json, keyed by its marker (for example "3.4"). */
export interface CiteEntry extends Extra {
  data_source_uuid: string;
  title: string;
  /** The cited passage. */
  text: string;
  file_name: string;
  type: string;
}

export interface Message extends Extra {
  uuid: string;
  query: string;
  response: string;
  /** As received, as JSON text. */
  cite_data_json: string;
  /** cite_data_json parsed ({} when empty or "null"). */
  cite_data: Record<string, CiteEntry>;
  /** Values seen: stop, length. Open set. */
  finish_reason: string;
  meta_json: string;
  meta: Extra;
  /** Present when the service recorded an in-band error. */
  error_message?: string;
  created_at: string;
  modified_at: string;
}

// ---- What we send ----
// The input types follow from the rules that check them (rules/bodies.ts).

export type {
  AgentCreateInput,
  AgentMetaInput,
  AgentUpdateInput,
  AgentVariableInput,
  ChatbotCreateInput,
  HumanEscalationInput,
  QaSourceInput,
  SessionCreateInput,
  SourceRenameInput,
  SourceTagCreateInput,
  SourceTagUpdateInput,
  StreamInput,
  UploadSourceInput,
  UrlSourceInput,
} from './rules/bodies.js';
