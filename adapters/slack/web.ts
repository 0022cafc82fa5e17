// The Web API as the adapter uses it: every call paced per workspace and method, 429s turned into
// SurfaceRateLimitError (and remembered), Slack's error codes surfaced as SlackCallError.
import { CodedError, ErrorCode } from '../../src/errors.js';
import type { WebAPICallResult, WebClient } from '@slack/web-api';
import type { BridgeObserver } from '../../src/bridge/observer.js';
import { SurfaceRateLimitError } from '../../src/bridge/types.js';
import { sleep, type Pacer } from './pacing.js';

/** Slack answered ok:false (or the call failed on the way); `slackCode` is Slack's error string. */
export class SlackCallError extends CodedError {
  constructor(
    readonly method: string,
    readonly slackCode: string,
    message = `${method} failed: ${slackCode}`,
  ) {
    super(ErrorCode.SlackCallFailed, message);
    this.name = 'SlackCallError';
  }
}

export type Pace =
  /** Wait for a token (calls that must go out: first words, final text, clearing state). */
  | 'wait'
  /**
   * Throw SurfaceRateLimitError when no token is free now (updates: the renderer coalesces).
   * Spends the method's live share, where it has one (limits.ts).
   */
  | 'try';

export type CallArgs = Record<string, unknown>;

export interface SlackApi {
  call(workspace: string, method: string, args: CallArgs, pace?: Pace): Promise<WebAPICallResult>;
  /** Like call with pace 'wait', and waits out up to `attempts` 429s before giving up. */
  deliver(
    workspace: string,
    method: string,
    args: CallArgs,
    attempts?: number,
  ): Promise<WebAPICallResult>;
}

interface WebApiFailure {
  code?: string;
  retryAfter?: number;
  data?: { error?: string };
  statusCode?: number;
}

/**
 * `client` carries every call with one bot token; with OAuth, `clientFor` gives the client of
 * the workspace a call is for (undefined: the workspace is not installed, the call fails).
 */
export function createSlackApi(
  client: WebClient,
  pacer: Pacer,
  observer?: BridgeObserver,
  clientFor?: (workspace: string) => WebClient | undefined,
): SlackApi {
  const observe = (method: string, outcome: 'ok' | 'rate_limited' | 'error') =>
    observer?.platformCall?.('slack', method, outcome);
  const call = async (
    workspace: string,
    method: string,
    args: CallArgs,
    pace: Pace = 'wait',
  ): Promise<WebAPICallResult> => {
    // assistant.threads.* name theirs channel_id; Slack counts both per channel.
    const named = args.channel ?? args.channel_id;
    const channel = typeof named === 'string' ? named : undefined;
    const caller = clientFor ? clientFor(workspace) : client;
    if (!caller) {
      throw new SlackCallError(
        method,
        'not_authed',
        `${method}: workspace ${workspace} is not installed`,
      );
    }
    if (pace === 'try') {
      // A call that may be skipped spends the method's live share (limits.ts liveShare).
      const wait = await pacer.tryTake(workspace, method, channel, 'live');
      if (wait > 0) throw new SurfaceRateLimitError(wait);
    } else {
      await pacer.take(workspace, method, undefined, channel);
    }
    try {
      const result = await caller.apiCall(method, args);
      observe(method, 'ok');
      return result;
    } catch (error) {
      const coded = error as WebApiFailure;
      observe(method, coded.code === 'slack_webapi_rate_limited_error' ? 'rate_limited' : 'error');
      if (coded.code === 'slack_webapi_rate_limited_error') {
        const retryAfterMs = Math.max(1, (coded.retryAfter ?? 1) * 1000);
        await pacer.block(workspace, method, retryAfterMs).catch(() => undefined);
        throw new SurfaceRateLimitError(retryAfterMs, `${method}: rate limited by Slack`);
      }
      if (coded.code === 'slack_webapi_platform_error') {
        throw new SlackCallError(method, coded.data?.error ?? 'unknown_error');
      }
      if (coded.code === 'slack_webapi_http_error') {
        throw new SlackCallError(method, `http_${coded.statusCode ?? 'error'}`);
      }
      throw new SlackCallError(method, 'request_failed', `${method} failed: ${String(error)}`);
    }
  };

  const deliver = async (
    workspace: string,
    method: string,
    args: CallArgs,
    attempts = 4,
  ): Promise<WebAPICallResult> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call(workspace, method, args, 'wait');
      } catch (error) {
        if (!(error instanceof SurfaceRateLimitError) || attempt >= attempts) throw error;
        await sleep(error.retryAfterMs);
      }
    }
  };

  return { call, deliver };
}

export function errorCode(error: unknown): string | undefined {
  return error instanceof SlackCallError ? error.slackCode : undefined;
}

/** The ts of the message a call created; a reply without one is a broken contract. */
export function messageTs(result: WebAPICallResult, method: string): string {
  const ts = (result as { ts?: unknown }).ts;
  if (typeof ts !== 'string' || ts === '') throw new SlackCallError(method, 'missing_ts');
  return ts;
}
