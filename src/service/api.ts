// The service client's surface: one method per endpoint of the interface (all 15).
// Implemented by createServiceClient in client.ts; bridge and admin code against this type.
import type { Dispatcher } from 'undici';
import type { ProxySettings } from './dispatchers.js';
import type {
  Agent,
  AgentCreateInput,
  AgentUpdateInput,
  Chatbot,
  ChatbotCreateInput,
  DataSource,
  Message,
  QaSourceInput,
  Session,
  SessionCreateInput,
  SourceRenameInput,
  SourceTag,
  SourceTagCreateInput,
  SourceTagUpdateInput,
  StreamInput,
  UploadSourceInput,
  UrlSourceInput,
} from './types.js';

export interface CallOptions {
  /** Cancels the call; a cancelled call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the client's total timeout for this call. */
  timeoutMs?: number;
}

/**
 * The answer as raw text, exactly as sent: each piece as it arrives, nothing trimmed or split.
 * Iteration ends when the connection closes cleanly; a reset or an idle timeout mid-stream
 * throws a ServiceError whose partialText holds what arrived before.
 */
export interface AnswerStream extends AsyncIterable<string> {
  /** All text received so far. */
  readonly received: string;
  /** Stops reading and closes the connection. */
  cancel(reason?: unknown): void;
}

export interface ServiceClient {
  // Chatbots
  createChatbot(input: ChatbotCreateInput, options?: CallOptions): Promise<Chatbot>;
  listChatbots(options?: CallOptions): Promise<Chatbot[]>;
  // Agents
  listAgents(chatbotUuid: string, options?: CallOptions): Promise<Agent[]>;
  createAgent(chatbotUuid: string, input: AgentCreateInput, options?: CallOptions): Promise<Agent>;
  updateAgent(agentUuid: string, input: AgentUpdateInput, options?: CallOptions): Promise<Agent>;
  // Data sources
  addQaSource(
    chatbotUuid: string,
    input: QaSourceInput,
    options?: CallOptions,
  ): Promise<DataSource>;
  addUrlSource(
    chatbotUuid: string,
    input: UrlSourceInput,
    options?: CallOptions,
  ): Promise<DataSource>;
  uploadSource(
    chatbotUuid: string,
    input: UploadSourceInput,
    options?: CallOptions,
  ): Promise<DataSource>;
  renameSource(
    sourceUuid: string,
    input: SourceRenameInput,
    options?: CallOptions,
  ): Promise<DataSource>;
  // Source tags
  listSourceTags(chatbotUuid: string, options?: CallOptions): Promise<SourceTag[]>;
  createSourceTag(
    chatbotUuid: string,
    input: SourceTagCreateInput,
    options?: CallOptions,
  ): Promise<SourceTag>;
  updateSourceTag(
    tagUuid: string,
    input: SourceTagUpdateInput,
    options?: CallOptions,
  ): Promise<SourceTag>;
  // Sessions and chat
  createSession(
    chatbotUuid: string,
    input?: SessionCreateInput,
    options?: CallOptions,
  ): Promise<Session>;
  /**
   * Sends the query. Resolves once the server has accepted it (2xx headers); HTTP errors
   * (401, 404, 429, 5xx) reject here. Never retried once sent: the question would be asked twice.
   */
  streamMessage(
    sessionUuid: string,
    input: StreamInput,
    options?: CallOptions,
  ): Promise<AnswerStream>;
  listMessages(sessionUuid: string, options?: CallOptions): Promise<Message[]>;
  /** Closes the keep-alive pool. */
  close(): Promise<void>;
}

export interface ServiceTimeouts {
  /** TCP/TLS connect. Default 10 s. */
  connectMs: number;
  /** From sending to the response headers / first byte. Default 30 s. */
  firstByteMs: number;
  /** Longest silence between two chunks of a body. Default 60 s. */
  idleMs: number;
  /** Whole call, stream included. Default 5 minutes. */
  totalMs: number;
}

export interface ServiceClientConfig {
  /** Host part, e.g. https://app.gpt-trainer.com; paths add /api/v1/…. */
  baseUrl: string;
  apiKey: string;
  timeouts?: Partial<ServiceTimeouts>;
  /** Retries of GETs and creates that never reached the server. Default 3. */
  maxRetries?: number;
  /** Base delay of the exponential backoff. Default 200 ms. */
  retryBaseMs?: number;
  /** Keep-alive connections per origin for ordinary calls (answer streams: no cap). Default 16. */
  connections?: number;
  /**
   * Certificate authorities (PEM) trusted for an https service besides Node's bundled ones, e.g.
   * a self-hosted service behind a private CA. NODE_EXTRA_CA_CERTS does the same process-wide;
   * given `ca`, Node no longer adds NODE_EXTRA_CA_CERTS's authorities to this client's.
   */
  ca?: string | string[];
  /**
   * Reach the service through this proxy (undici's EnvHttpProxyAgent; `proxyFromEnv` reads the
   * standard variables). `ca` applies to the service's TLS through the tunnel.
   */
  proxy?: ProxySettings;
  /** Injected for tests: a custom undici Dispatcher, which then carries every call, streams too. */
  dispatcher?: Dispatcher;
}
