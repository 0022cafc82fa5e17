// "Working on it" in a Slack thread: the thread's thinking status with loading messages where
// Slack allows it, otherwise an hourglass reaction on the user's message. Both are cleared at
// the end; failures here never fail an answer.
//
// Under load the status budget (limits.ts: about one a second per channel) may have no token
// free: the hourglass goes on instead if its budget has one, and otherwise the status goes on as
// soon as a token frees, unless the answer ended first. Nothing is added after stop(), so no
// stale status or hourglass is left behind.
import type { Logger } from '../../src/log.js';
import { SurfaceRateLimitError } from '../../src/bridge/types.js';
import { isPermanentError, type WorkspaceFeatures } from './features.js';
import { sleep } from './pacing.js';
import { errorCode, type CallArgs, type SlackApi } from './web.js';

export const WORKING_REACTION = 'hourglass_flowing_sand';
export const LOADING_MESSAGES = [
  'Reading the question…',
  'Looking through the sources…',
  'Writing an answer…',
];

export interface WorkingPlace {
  workspace: string;
  channel: string;
  threadTs: string;
  /** The user's message, where the reaction goes. */
  messageTs: string;
  /** "im" or "channel": the status is allowed in some kinds of conversation and not others. */
  kind: string;
}

export class WorkingIndicator {
  private statusShown = false;
  private reactionShown = false;
  private stopped = false;
  /** Aborts a wait for a status token when the answer ends. */
  private readonly ended = new AbortController();
  private showing?: Promise<void>;

  constructor(
    private readonly api: SlackApi,
    private readonly features: WorkspaceFeatures,
    private readonly place: WorkingPlace,
    private readonly logger: Logger,
  ) {}

  private first?: Promise<void>;

  /** Sets (or refreshes, before Slack's two-minute timeout) the status; else the reaction. */
  show(): Promise<void> {
    // One at a time: a refresh while the first is still waiting for a token joins it.
    this.showing ??= this.showOnce().finally(() => (this.showing = undefined));
    this.first ??= this.showing;
    return this.showing;
  }

  /**
   * Resolves once the first show() has put a status or the hourglass on, or given up (refused,
   * the answer ended), or after `maxMs`: a reply posted whole waits on it, so that its thread
   * shows work before the answer arrives.
   */
  async shown(maxMs: number): Promise<void> {
    if (!this.first || this.statusShown || this.reactionShown) return;
    const timeout = new AbortController();
    await Promise.race([this.first, sleep(maxMs, timeout.signal).catch(() => {})]);
    timeout.abort();
  }

  private async showOnce(): Promise<void> {
    if (this.stopped || this.reactionShown) return;
    const { workspace, kind } = this.place;
    if (!this.features.status(workspace, kind)) {
      await this.addReaction(true);
      return;
    }
    // A refresh: one try; a missed one leaves the status on until Slack's timeout.
    if (this.statusShown) {
      await this.setStatus();
      return;
    }
    let outcome = await this.setStatus();
    if (outcome === 'refused') await this.addReaction(true);
    if (!(outcome instanceof SurfaceRateLimitError)) return;
    // No status token free now: the hourglass if one is, else the status as soon as one is.
    if (await this.addReaction(false)) return;
    while (outcome instanceof SurfaceRateLimitError && !this.stopped) {
      await sleep(outcome.retryAfterMs, this.ended.signal).catch(() => {});
      outcome = await this.setStatus();
      if (outcome === 'refused') await this.addReaction(true);
    }
  }

  /** One status call, if a token is free now. */
  private async setStatus(): Promise<'shown' | 'refused' | 'failed' | SurfaceRateLimitError> {
    const { workspace, channel, threadTs, kind } = this.place;
    const outcome = await this.attempt('assistant.threads.setStatus', {
      channel_id: channel,
      thread_ts: threadTs,
      status: 'is thinking…',
      loading_messages: LOADING_MESSAGES,
    });
    if (outcome === 'shown') {
      this.statusShown = true;
      return 'shown';
    }
    if (outcome instanceof SurfaceRateLimitError) return outcome;
    const code = errorCode(outcome);
    if (code === undefined) return 'failed'; // the next refresh tries again
    if (isPermanentError(code) || code === 'channel_not_found' || code === 'invalid_thread_ts')
      this.features.disableStatus(workspace, kind, code);
    this.logger.debug({ code }, 'slack: thread status refused, using a reaction');
    return 'refused';
  }

  /** The hourglass; `wait`: for a token, else only if one is free now. Whether it is on. */
  private async addReaction(wait: boolean): Promise<boolean> {
    const { channel, messageTs } = this.place;
    const args = { channel, timestamp: messageTs, name: WORKING_REACTION };
    while (!this.reactionShown && !this.stopped) {
      const outcome = await this.attempt('reactions.add', args);
      if (outcome === 'shown' || errorCode(outcome) === 'already_reacted') {
        this.reactionShown = true;
      } else if (outcome instanceof SurfaceRateLimitError && wait) {
        await sleep(outcome.retryAfterMs, this.ended.signal).catch(() => {});
      } else {
        if (!(outcome instanceof SurfaceRateLimitError)) {
          this.logger.debug({ code: errorCode(outcome) }, 'slack: working reaction refused');
        }
        return false;
      }
    }
    return this.reactionShown;
  }

  /** A call that goes out only if a token is free now and the answer has not ended. */
  private async attempt(method: string, args: CallArgs): Promise<'shown' | unknown> {
    if (this.stopped) return new SurfaceRateLimitError(0, 'answer ended');
    try {
      await this.api.call(this.place.workspace, method, args, 'try');
      return 'shown';
    } catch (error) {
      return error;
    }
  }

  /** Clears whatever was shown; a status or hourglass still waiting for a token never goes on. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ended.abort();
    await this.showing;
    const { workspace, channel, threadTs, messageTs } = this.place;
    const jobs: Promise<unknown>[] = [];
    if (this.statusShown) {
      this.statusShown = false;
      jobs.push(
        this.api.call(workspace, 'assistant.threads.setStatus', {
          channel_id: channel,
          thread_ts: threadTs,
          status: '',
        }),
      );
    }
    if (this.reactionShown) {
      this.reactionShown = false;
      jobs.push(
        this.api.call(workspace, 'reactions.remove', {
          channel,
          timestamp: messageTs,
          name: WORKING_REACTION,
        }),
      );
    }
    const results = await Promise.allSettled(jobs);
    for (const result of results) {
      if (result.status === 'rejected') {
        this.logger.debug(
          { code: errorCode(result.reason) },
          'slack: clearing working state failed',
        );
      }
    }
  }
}
