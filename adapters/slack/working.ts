// "Working on it" in a Slack thread: the thread's thinking status with loading messages where
// Slack allows it, otherwise an hourglass reaction on the user's message. Both are cleared at
// the end; failures here never fail an answer.
import type { Logger } from '../../src/log.js';
import { isPermanentError, type WorkspaceFeatures } from './features.js';
import { errorCode, type SlackApi } from './web.js';

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

  constructor(
    private readonly api: SlackApi,
    private readonly features: WorkspaceFeatures,
    private readonly place: WorkingPlace,
    private readonly logger: Logger,
  ) {}

  /** Sets (or refreshes, before Slack's two-minute timeout) the status; else the reaction. */
  async show(): Promise<void> {
    const { workspace, channel, threadTs, kind } = this.place;
    if (this.features.status(workspace, kind)) {
      try {
        await this.api.call(
          workspace,
          'assistant.threads.setStatus',
          {
            channel_id: channel,
            thread_ts: threadTs,
            status: 'is thinking…',
            loading_messages: LOADING_MESSAGES,
          },
          'try',
        );
        this.statusShown = true;
        return;
      } catch (error) {
        const code = errorCode(error);
        if (code === undefined) return; // rate limited or network: try again on the next refresh
        if (isPermanentError(code) || code === 'channel_not_found' || code === 'invalid_thread_ts')
          this.features.disableStatus(workspace, kind, code);
        this.logger.debug({ code }, 'slack: thread status refused, using a reaction');
      }
    }
    await this.addReaction();
  }

  private async addReaction(): Promise<void> {
    if (this.reactionShown) return;
    const { workspace, channel, messageTs } = this.place;
    try {
      await this.api.call(workspace, 'reactions.add', {
        channel,
        timestamp: messageTs,
        name: WORKING_REACTION,
      });
      this.reactionShown = true;
    } catch (error) {
      if (errorCode(error) === 'already_reacted') this.reactionShown = true;
      else this.logger.debug({ code: errorCode(error) }, 'slack: working reaction refused');
    }
  }

  /** Clears whatever was shown. */
  async stop(): Promise<void> {
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
