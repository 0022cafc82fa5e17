// What a workspace turned out not to support (native streaming, the thread status), learnt from
// permanent errors so we stop trying. A capability cache, not conversation state: losing it on
// restart costs one refused call.

/** Errors that will not go away by retrying: the method or feature is not there for this app. */
const PERMANENT = new Set([
  'unknown_method',
  'method_deprecated',
  'not_allowed_token_type',
  'missing_scope',
  'feature_not_enabled',
  'not_allowed',
  'no_permission',
  'team_access_not_granted',
  'access_denied',
  'invalid_arguments',
]);

export function isPermanentError(code: string | undefined): boolean {
  return code !== undefined && PERMANENT.has(code);
}

/** Errors worth retrying with the latest text: no answer at all, a 5xx, Slack "try later". */
const TRANSIENT = new Set([
  'request_failed',
  'ratelimited',
  'internal_error',
  'fatal_error',
  'service_unavailable',
  'request_timeout',
]);

export function isTransientError(code: string | undefined): boolean {
  return code !== undefined && (TRANSIENT.has(code) || /^http_5\d\d$/.test(code));
}

export class WorkspaceFeatures {
  private readonly off = new Map<string, string>();

  private key(feature: string, workspace: string, scope: string): string {
    return `${feature}:${workspace}:${scope}`;
  }

  /** Native streaming in this workspace (per conversation kind: "im" or "channel"). */
  streaming(workspace: string, kind: string): boolean {
    return !this.off.has(this.key('stream', workspace, kind));
  }

  disableStreaming(workspace: string, kind: string, reason: string): void {
    this.off.set(this.key('stream', workspace, kind), reason);
  }

  /** assistant.threads.setStatus in this workspace and conversation kind. */
  status(workspace: string, kind: string): boolean {
    return !this.off.has(this.key('status', workspace, kind));
  }

  disableStatus(workspace: string, kind: string, reason: string): void {
    this.off.set(this.key('status', workspace, kind), reason);
  }
}
