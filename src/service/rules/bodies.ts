// What each endpoint takes, written once: the client checks what it sends with these, the
// local service derives its route JSON schemas from them and answers 400 with their wording,
// and the input types below follow from them.
import { z } from 'zod';
import { AGENT_TYPES, VISIBILITIES } from './vocabulary.js';
import {
  colour,
  flag,
  flatValue,
  httpUrl,
  id,
  idList,
  oneOf,
  optionalBoolean,
  optionalString,
  rateLimit,
  record,
  text,
  unit,
} from './fields.js';

export const chatbotCreate = record({
  name: text(),
  visibility: oneOf(VISIBILITIES).optional(),
  rate_limit: rateLimit().optional(),
  // An empty message would make the 429 say nothing: leave it out to get the default.
  rate_limit_message: z
    .string({ error: 'must be a string' })
    .regex(/\S/, { error: 'must not be empty (leave it out for the default message)' })
    .optional(),
  show_citations: optionalBoolean(),
});

const agentTag = record({
  name: text(),
  color: colour(),
  criteria: z.string({ error: 'must be a string' }),
});

const agentTags = () =>
  z.array(agentTag, { error: 'must be a list of {name, color, criteria}' }).optional();

export const agentMeta = record({
  model: text().optional(),
  temperature: unit(),
  bias: unit(),
  stickness: unit(), // spelled this way by the service
  default_message: optionalString(),
  tags: agentTags(),
  use_all_sources: optionalBoolean(),
});

export const agentCreate = record({
  name: text(),
  type: oneOf(AGENT_TYPES),
  description: optionalString(),
  prompt: optionalString(),
  temperature: unit(),
  model: text().optional(),
  meta: agentMeta.optional(),
});

const agentVariable = record({
  name: text(),
  description: optionalString(),
  example: optionalString(),
  type: optionalString(),
  default_value: record({
    content: optionalString(),
    static: z.literal([0, 1], { error: 'must be 0 or 1' }).optional(),
  }).optional(),
});

const humanEscalationSettings = record({
  human_requested_message: optionalString(),
  live_chat_start_announcement: optionalString(),
  live_chat_end_announcement: optionalString(),
  // Element shape not shown by the interface: any JSON values (the body's depth limit holds).
  monitored_messages: z.array(z.unknown(), { error: 'must be a list' }).optional(),
  notifications_enabled: flag(),
  sound_enabled: flag(),
});

/** The documented fields plus those the field notes saw accepted in practice. */
export const agentUpdate = record({
  name: text().optional(),
  description: optionalString(),
  prompt: optionalString(),
  model: text().optional(),
  enabled: optionalBoolean(),
  variables: z.array(agentVariable, { error: 'must be a list of variables' }).optional(),
  data_source_uuids: idList(),
  temperature: unit(),
  use_all_sources: optionalBoolean(),
  tags: agentTags(),
  human_escalation_settings: humanEscalationSettings.optional(),
  meta: agentMeta.optional(),
});

export const qaSource = record({ question: text(), answer: text() });

export const urlSource = record({ url: httpUrl() });

const fileSize = (file: unknown): number | undefined =>
  file instanceof Uint8Array ? file.byteLength : file instanceof Blob ? file.size : undefined;

export const upload = record({
  file: z
    .custom<Uint8Array | Blob>((file) => fileSize(file) !== undefined, {
      error: 'is required (the bytes of the file to upload)',
      abort: true,
    })
    .refine((file) => fileSize(file) !== 0, { error: 'must not be empty' }),
  /** The name the service records (its extension decides the type). */
  file_name: text(),
  content_type: optionalString(),
  reference_source_link: httpUrl().optional(),
  /** Further keys for the meta_json form field. */
  meta: z.record(z.string(), z.unknown(), { error: 'must be an object' }).optional(),
});

export const sourceRename = record({ title: text() });

export const sourceTagCreate = record({
  name: text(),
  color: colour(),
  data_source_uuids: idList(),
});

export const sourceTagUpdate = record({
  name: text().optional(),
  color: colour().optional(),
  data_source_uuids: idList(),
});

export const sessionCreate = record({
  initial_variables: z.record(z.string(), flatValue(), { error: 'must be an object' }).optional(),
});

export const stream = record({ query: text() });

/** A path's {uuid}. */
export const uuidParams = record({ uuid: id() });

export type ChatbotCreateInput = z.input<typeof chatbotCreate>;
export type AgentMetaInput = z.input<typeof agentMeta>;
export type AgentCreateInput = z.input<typeof agentCreate>;
export type AgentUpdateInput = z.input<typeof agentUpdate>;
export type AgentVariableInput = z.input<typeof agentVariable>;
export type HumanEscalationInput = z.input<typeof humanEscalationSettings>;
export type QaSourceInput = z.input<typeof qaSource>;
export type UrlSourceInput = z.input<typeof urlSource>;
export type UploadSourceInput = z.input<typeof upload>;
export type SourceRenameInput = z.input<typeof sourceRename>;
export type SourceTagCreateInput = z.input<typeof sourceTagCreate>;
export type SourceTagUpdateInput = z.input<typeof sourceTagUpdate>;
export type SessionCreateInput = z.input<typeof sessionCreate>;
export type StreamInput = z.input<typeof stream>;
