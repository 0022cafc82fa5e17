// One base for every error chatbridge throws on purpose, as bolt-js's CodedError: a stable
// `code` (what callers branch on: user notices, HTTP statuses, exit messages), the message
// (for people and logs) and the `cause`. Codes are data, so a caller asks `isCodedError(e,
// ErrorCode.X)` instead of walking an instanceof chain, and an error crossing a worker or a
// bundle boundary still says what it is.

export const ErrorCode = {
  // Configuration and start-up
  ConfigInvalid: 'chatbridge_config_invalid',
  UsageInvalid: 'chatbridge_usage_invalid',
  SecretKeyInvalid: 'chatbridge_secret_key_invalid',
  SealedValueUnreadable: 'chatbridge_sealed_value_unreadable',
  StoreFileUnusable: 'chatbridge_store_file_unusable',
  // The chatbot service (ServiceError: one code per kind)
  ServiceAuth: 'chatbridge_service_auth',
  ServiceNotFound: 'chatbridge_service_not_found',
  ServiceValidation: 'chatbridge_service_validation',
  ServiceConflict: 'chatbridge_service_conflict',
  ServiceRateLimited: 'chatbridge_service_rate_limited',
  ServiceUnavailable: 'chatbridge_service_unavailable',
  ServiceTimeout: 'chatbridge_service_timeout',
  ServiceProtocol: 'chatbridge_service_protocol',
  // State
  LockLost: 'chatbridge_lock_lost',
  LockUnavailable: 'chatbridge_lock_unavailable',
  IntakeUnavailable: 'chatbridge_intake_unavailable',
  // Chat surfaces
  SurfaceRateLimited: 'chatbridge_surface_rate_limited',
  ShuttingDown: 'chatbridge_shutting_down',
  SlackCallFailed: 'chatbridge_slack_call_failed',
  SlackFileRefused: 'chatbridge_slack_file_refused',
  SlackNotInstalled: 'chatbridge_slack_not_installed',
  DiscordIntentsDisallowed: 'chatbridge_discord_intents_disallowed',
  DiscordAttachmentRefused: 'chatbridge_discord_attachment_refused',
  // Admin commands
  AdminInput: 'chatbridge_admin_input',
  AdminRefused: 'chatbridge_admin_refused',
  AdminFileTooLarge: 'chatbridge_admin_file_too_large',
  // The local service
  HttpResponse: 'chatbridge_http_response',
  SourceDuplicate: 'chatbridge_source_duplicate',
  FileTypeUnsupported: 'chatbridge_file_type_unsupported',
  ExtractionLimit: 'chatbridge_extraction_limit',
  FetchFailed: 'chatbridge_fetch_failed',
  EmbeddingsFailed: 'chatbridge_embeddings_failed',
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface CodedErrorOptions {
  cause?: unknown;
}

export class CodedError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options: CodedErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    // The subclass's own name (ConfigError, ServiceError …) in stacks and logs.
    this.name = new.target.name;
  }
}

/** Whether `error` is a CodedError, and (when given) one of these codes. */
export function isCodedError<C extends ErrorCode>(
  error: unknown,
  ...codes: C[]
): error is CodedError & { code: C } {
  return (
    error instanceof CodedError &&
    (codes.length === 0 || (codes as ErrorCode[]).includes(error.code))
  );
}
