// Checks of what is sent to the service, before sending. Shared by the client (which refuses
// to send a bad value) and the local service (which answers 400 for one). The rules live in
// rules/ (zod, written once); each failure is a ServiceError of kind "validation" naming the
// field and the rule.
import * as rules from './rules/bodies.js';
import { checkWith } from './rules/check.js';
import { colour, httpUrl, id, rateLimit, text } from './rules/fields.js';
import type {
  AgentCreateInput,
  AgentMetaInput,
  AgentUpdateInput,
  ChatbotCreateInput,
  QaSourceInput,
  SessionCreateInput,
  SourceRenameInput,
  SourceTagCreateInput,
  SourceTagUpdateInput,
  StreamInput,
  UploadSourceInput,
  UrlSourceInput,
} from './types.js';

// Built once: the client checks an id for every path it builds, and building a zod rule costs
// more than checking with it.
const TEXT = text();
const ID = id();
const COLOUR = colour();
const HTTP_URL = httpUrl();
const RATE_LIMIT = rateLimit();

export const requireText = (value: unknown, field: string): string => checkWith(TEXT, value, field);

export const requireId = (value: unknown, field: string): string => checkWith(ID, value, field);

export const requireColour = (value: unknown, field: string): string =>
  checkWith(COLOUR, value, field);

export const requireHttpUrl = (value: unknown, field: string): string =>
  checkWith(HTTP_URL, value, field);

export const validateRateLimit = (value: unknown, field = 'rate_limit'): [number, number] =>
  checkWith(RATE_LIMIT, value, field);

export const validateChatbotCreate = (input: unknown): ChatbotCreateInput =>
  checkWith(rules.chatbotCreate, input);

export const validateAgentMeta = (input: unknown, field = 'meta'): AgentMetaInput =>
  checkWith(rules.agentMeta, input, field);

export const validateAgentCreate = (input: unknown): AgentCreateInput =>
  checkWith(rules.agentCreate, input);

export const validateAgentUpdate = (input: unknown): AgentUpdateInput =>
  checkWith(rules.agentUpdate, input);

export const validateQaSource = (input: unknown): QaSourceInput => checkWith(rules.qaSource, input);

export const validateUrlSource = (input: unknown): UrlSourceInput =>
  checkWith(rules.urlSource, input);

export const validateUpload = (input: unknown): UploadSourceInput => checkWith(rules.upload, input);

export const validateSourceRename = (input: unknown): SourceRenameInput =>
  checkWith(rules.sourceRename, input);

export const validateSourceTagCreate = (input: unknown): SourceTagCreateInput =>
  checkWith(rules.sourceTagCreate, input);

export const validateSourceTagUpdate = (input: unknown): SourceTagUpdateInput =>
  checkWith(rules.sourceTagUpdate, input);

/** No body is an empty one: the session's variables are optional. */
export const validateSessionCreate = (input: unknown): SessionCreateInput =>
  input === undefined ? {} : checkWith(rules.sessionCreate, input);

export const validateStream = (input: unknown): StreamInput => checkWith(rules.stream, input);
