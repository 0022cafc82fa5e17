// 👍/👎 under Slack answers: a context_actions block with Slack's feedback_buttons element on the
// last message of an answer (sent with chat.stopStream, or chat.update when the message was
// posted and edited). A click records the vote (castVote, in the bridge) and is acknowledged
// ephemerally in the thread; a 👎 also opens a modal asking, optionally, why. Submitting it
// saves the reason with that 👎.
import type { App } from '@slack/bolt';
import {
  castVote,
  FEEDBACK_REASON_MAX,
  giveReason,
  REASON_THANKS,
  voteAcknowledgement,
  type FeedbackDeps,
  type FeedbackVote,
} from '../../src/bridge/index.js';
import type { Logger } from '../../src/log.js';
import type { SlackBlock } from './format.js';
import { input, plain, textValue, type ViewValues } from './modals.js';
import type { SlackApi } from './web.js';

export const FEEDBACK_ACTION = 'chatbridge_feedback';
export const REASON_CALLBACK = 'chatbridge_feedback_reason';
const VALUE = { up: 'positive', down: 'negative' } as const;

/** The 👍/👎 block of an answer; each button's value names the vote and the answer. */
export function feedbackBlock(answerId: string): SlackBlock {
  const button = (vote: FeedbackVote, emoji: string, label: string) => ({
    text: { type: 'plain_text', text: emoji },
    value: `${VALUE[vote]}:${answerId}`,
    accessibility_label: label,
  });
  return {
    type: 'context_actions',
    block_id: `${FEEDBACK_ACTION}:${answerId}`,
    elements: [
      {
        type: 'feedback_buttons',
        action_id: FEEDBACK_ACTION,
        positive_button: button('up', '👍', 'This answer helped'),
        negative_button: button('down', '👎', 'This answer was wrong or unhelpful'),
      },
    ],
  };
}

/** "positive:<answer>" → the vote and the answer; undefined for anything else. */
function parseFeedbackValue(value: unknown): { vote: FeedbackVote; answerId: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(positive|negative):(.{1,200})$/.exec(value);
  if (!match) return undefined;
  return { vote: match[1] === 'positive' ? 'up' : 'down', answerId: match[2]! };
}

interface ReasonOrigin {
  id: string;
  workspace: string;
  channel: string;
  thread?: string;
}

export function reasonModal(origin: ReasonOrigin): SlackBlock {
  return {
    type: 'modal',
    callback_id: REASON_CALLBACK,
    private_metadata: JSON.stringify(origin),
    title: plain('What went wrong?'),
    submit: plain('Send'),
    close: plain('Skip'),
    blocks: [
      input(
        'reason',
        'Tell us briefly what was wrong (optional)',
        {
          type: 'plain_text_input',
          action_id: 'reason',
          multiline: true,
          max_length: FEEDBACK_REASON_MAX,
        },
        true,
      ),
    ],
  };
}

function parseOrigin(metadata: unknown): ReasonOrigin | undefined {
  try {
    const parsed = JSON.parse(String(metadata)) as Partial<ReasonOrigin>;
    const { id, workspace, channel, thread } = parsed;
    if (typeof id !== 'string' || typeof workspace !== 'string' || typeof channel !== 'string') {
      return undefined;
    }
    return { id, workspace, channel, ...(typeof thread === 'string' ? { thread } : {}) };
  } catch {
    return undefined;
  }
}

/** The parts of a block_actions payload a vote needs. */
interface ActionBody {
  team?: { id?: string } | null;
  user: { id: string; team_id?: string };
  channel?: { id?: string };
  message?: { ts?: string; thread_ts?: string };
  trigger_id?: string;
  actions?: { action_id?: string; value?: unknown }[];
}

export interface SlackFeedbackDeps extends FeedbackDeps {
  api: SlackApi;
  logger: Logger;
}

export function registerFeedback(
  app: App,
  deps: SlackFeedbackDeps,
  track: (job: Promise<unknown>) => void,
): void {
  const { api, logger } = deps;

  const tell = async (
    workspace: string,
    channel: string,
    user: string,
    text: string,
    thread?: string,
  ) => {
    try {
      await api.deliver(workspace, 'chat.postEphemeral', {
        channel,
        user,
        text,
        ...(thread ? { thread_ts: thread } : {}),
      });
    } catch (error) {
      logger.info({ err: error }, 'slack: could not acknowledge a vote');
    }
  };

  async function vote(body: ActionBody): Promise<void> {
    const action = body.actions?.find((each) => each.action_id === FEEDBACK_ACTION);
    const parsed = parseFeedbackValue(action?.value);
    const workspace = body.team?.id ?? body.user.team_id;
    const channel = body.channel?.id;
    if (!parsed || !workspace || !channel) return;
    const thread = body.message?.thread_ts ?? body.message?.ts;
    const outcome = await castVote(deps, {
      platform: 'slack',
      workspace,
      answerId: parsed.answerId,
      userId: body.user.id,
      vote: parsed.vote,
    });
    // The form first: its trigger expires three seconds after the click.
    if (outcome.kind === 'recorded' && parsed.vote === 'down' && body.trigger_id) {
      const origin = { id: outcome.record.id, workspace, channel, ...(thread ? { thread } : {}) };
      await api
        .deliver(workspace, 'views.open', {
          trigger_id: body.trigger_id,
          view: reasonModal(origin),
        })
        .catch((error: unknown) => logger.info({ err: error }, 'slack: reason form not opened'));
    }
    await tell(workspace, channel, body.user.id, voteAcknowledgement(outcome), thread);
  }

  app.action(FEEDBACK_ACTION, async ({ ack, body }) => {
    await ack();
    track(vote(body as unknown as ActionBody));
  });

  app.view(REASON_CALLBACK, async ({ ack, view, body }) => {
    await ack();
    const origin = parseOrigin(view.private_metadata);
    const reason = textValue(view.state.values as ViewValues, 'reason');
    if (!origin || reason === undefined) return;
    track(
      (async () => {
        const saved = await giveReason(deps, { id: origin.id, userId: body.user.id, reason });
        if (saved) {
          await tell(origin.workspace, origin.channel, body.user.id, REASON_THANKS, origin.thread);
        }
      })(),
    );
  });
}
