// Which Slack messages get an answer, and in which thread. Mentions are answered (app_mention),
// follow-ups in a thread that already has a session need no mention, DMs are always answered.
// Duplicate deliveries (retries, a second replica) are dropped via the shared store. "reset"
// alone in a thread starts the conversation over instead of going to the chatbot.
import {
  IntakeUnavailableError,
  isIntakeUnavailable,
  type Intake,
  type KeptWork,
} from '../../src/bridge/intake.js';
import { threadKey } from '../../src/bridge/types.js';
import type { Conversation, IncomingMessage, ThreadRef } from '../../src/bridge/types.js';
import { ArrivalOrder } from './arrival.js';
import type { SlackChannels } from './channels.js';
import type { StateStore } from '../../src/state/types.js';
import { mentions, slackToPlainText } from './format.js';
import { createSlackReplyTarget, type SlackReplyOptions } from './reply.js';
import { interruptedCloser } from './takeover.js';
import { readEarlierMessages } from './thread-history.js';
import type { SlackUsers } from './users.js';

/** Longer than Slack's last retry (about an hour apart in the worst case is retried thrice). */
export const DEDUP_TTL_MS = 15 * 60_000;
/** Subtypes that are still a person writing; everything else (edits, joins, bots) is ignored. */
const USER_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  user_team?: string;
  team?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  hidden?: boolean;
}

export interface EventEnvelope {
  team_id?: string;
  event_id?: string;
}

export interface EventRouterDeps extends SlackReplyOptions {
  conversation: Conversation;
  state: StateStore;
  users: SlackUsers;
  channels: SlackChannels;
  /** The bot's own user id in a workspace (each workspace's bot has its own with OAuth). */
  botUserId: (workspace: string) => string | undefined;
  /** Where each event to answer is kept before Slack is told it arrived. */
  intake: Intake<KeptSlackEvent>;
}

/** What is kept of an event to answer: enough for any replica to answer it after a crash. */
export interface KeptSlackEvent {
  event: SlackMessageEvent;
  envelope: EventEnvelope;
  /** It came through the assistant pane (its thread's viewing context decides the chatbot). */
  assistant?: boolean;
}

type AssistantLookup = (ref: ThreadRef) => Promise<AssistantRoute | undefined>;

/** An event handed to the router: when it may be acknowledged, and when its answer is final. */
export interface Received {
  /**
   * Resolves once the event is kept (or is none to answer); rejects when it could not be kept:
   * then Slack must not be told it arrived (IntakeUnavailableError: the receiver answers 500).
   */
  kept: Promise<void>;
  /** Resolves when the answer is final. */
  done: Promise<RouteDecision>;
}

export type RouteDecision = 'answered' | 'reset' | 'ignored' | 'duplicate';

/** A message in an assistant-pane thread (see assistant.ts): how answering it differs. */
export interface AssistantRoute {
  /**
   * The channel the person is viewing: its chatbot answers (else the workspace's, else the
   * default) and its name goes to the chatbot. Absent when they view no channel.
   */
  viewingChannel?: string;
  /** Told of each message that goes to the engine (the first one titles the thread). */
  onQuestion(message: IncomingMessage): void;
}

function isDirect(event: SlackMessageEvent): boolean {
  return (
    event.channel_type === 'im' ||
    (event.channel_type === undefined && !!event.channel?.startsWith('D'))
  );
}

/** "reset", alone, any case, with punctuation around it ("Reset!", "`reset`"). */
const RESET = /^[^\p{L}\p{N}]*reset[^\p{L}\p{N}]*$/iu;
export const RESET_REPLY = 'Starting over: the next message begins a new conversation.';

/** How an event reaches the router: told when it is kept, or resumed from the intake queue. */
interface Arrival {
  /** Called once the event is kept (or found to be none to answer). */
  kept?: () => void;
  /** Called when it could not be kept. */
  unkept?: (error: unknown) => void;
  /** A takeover: the event is kept already, held by this replica. */
  resumed?: KeptWork;
}

/** What the ordered steps decided; an answer carries the running handle() call. */
type Prepared =
  | { decision: 'ignored' | 'duplicate' }
  | { decision: 'reset' }
  | { decision: 'answered'; answer: Promise<void> };

export class EventRouter {
  private readonly order = new ArrivalOrder();
  /** How a resumed assistant-pane event finds its route (set by assistant.ts). */
  assistantLookup: AssistantLookup | undefined;

  constructor(private readonly deps: EventRouterDeps) {}

  /** Hands an event over: Bolt's listener waits for `kept` before Slack gets its 200. */
  receive(
    event: SlackMessageEvent,
    envelope: EventEnvelope,
    assistantOf?: AssistantLookup,
  ): Received {
    let onKept!: () => void;
    let onUnkept!: (error: unknown) => void;
    const kept = new Promise<void>((resolve, reject) => {
      onKept = resolve;
      onUnkept = reject;
    });
    const unkept = (error: unknown) =>
      // Whatever stopped it before it was kept (the store down), Slack must deliver it again.
      onUnkept(isIntakeUnavailable(error) ? error : new IntakeUnavailableError(error));
    const done = this.route(event, envelope, assistantOf, { kept: onKept, unkept }).then(
      (decision) => {
        onKept();
        return decision;
      },
      (error: unknown) => {
        unkept(error);
        throw error;
      },
    );
    // Awaited by the listener; an unkept event is reported there, not twice.
    done.catch(() => {});
    return { kept, done };
  }

  /** A kept event whose holder died: answered here, closing what it left open. */
  async resume(kept: KeptSlackEvent, work: KeptWork): Promise<void> {
    const assistantOf = kept.assistant ? this.assistantLookup : undefined;
    const decision = await this.route(kept.event, kept.envelope, assistantOf, { resumed: work });
    if (decision !== 'answered') await work.finish();
  }

  /** Thread keys with ordered steps in progress (nothing is kept once a thread is idle). */
  get orderedThreads(): number {
    return this.order.size;
  }

  /** Decides and, when it is ours to answer, answers (resolves when the answer is final). */
  async route(
    event: SlackMessageEvent,
    envelope: EventEnvelope,
    /** Finds whether the thread is an assistant thread; read in the thread's arrival order. */
    assistantOf?: AssistantLookup,
    arrival: Arrival = {},
  ): Promise<RouteDecision> {
    if (event.bot_id || event.hidden || !USER_SUBTYPES.has(event.subtype)) return 'ignored';
    const { user, ts } = event;
    const workspace = envelope.team_id ?? event.team;
    if (!workspace) return 'ignored';
    if (!user || user === this.deps.botUserId(workspace) || !event.channel || !ts) {
      return 'ignored';
    }
    if (event.type !== 'message' && event.type !== 'app_mention') return 'ignored';
    const ref: ThreadRef = {
      platform: 'slack',
      workspace,
      channel: event.channel,
      thread: event.thread_ts ?? ts,
    };
    // Kept at once: Slack hears back when the event is kept, not after the thread's earlier
    // messages are through their lookups.
    const admitted = this.admit({ ...event, user, ts }, envelope, ref, { assistantOf, ...arrival });
    admitted.then(
      () => arrival.kept?.(),
      (error: unknown) => arrival.unkept?.(error),
    );
    // Everything before handle() is queued per thread, so handle() is called in arrival order.
    const prepared = await this.order.run(threadKey(ref), async (): Promise<Prepared> => {
      const work = await admitted;
      if (work === 'ignored' || work === 'duplicate') return { decision: work };
      try {
        const answer = await this.prepareAnswer({ ...event, user, ts }, ref, assistantOf, work);
        if (answer.decision !== 'answered') await work.finish();
        return answer;
      } catch (error) {
        await work.finish();
        throw error;
      }
    });
    if (prepared.decision === 'reset') {
      await this.confirmReset(ref);
      return 'reset';
    }
    if (prepared.decision !== 'answered') return prepared.decision;
    await prepared.answer;
    return 'answered';
  }

  /** Whether the event is ours to answer, and if so keeps it (a redelivery loses here). */
  private async admit(
    event: SlackMessageEvent & { user: string; ts: string },
    envelope: EventEnvelope,
    ref: ThreadRef,
    how: Arrival & { assistantOf: AssistantLookup | undefined },
  ): Promise<KeptWork | 'ignored' | 'duplicate'> {
    if (how.resumed) return how.resumed;
    const { workspace } = ref;
    if (event.type === 'message' && !isDirect(event)) {
      // A mention in a channel arrives again as app_mention: answer it there, once.
      if (mentions(event.text, this.deps.botUserId(workspace))) return 'ignored';
      const inThread = event.thread_ts !== undefined && event.thread_ts !== event.ts;
      if (!inThread || !(await this.deps.conversation.hasSession(ref))) return 'ignored';
    }
    const messageKey = `slack:message:${workspace}:${ref.channel}:${event.ts}`;
    const work = await this.deps.intake.keep(messageKey, {
      event,
      envelope,
      ...(how.assistantOf ? { assistant: true } : {}),
    });
    return work ?? 'duplicate';
  }

  private async prepareAnswer(
    event: SlackMessageEvent & { user: string; ts: string },
    ref: ThreadRef,
    assistantOf: AssistantLookup | undefined,
    work: KeptWork,
  ): Promise<Prepared> {
    const { conversation, users, channels, logger } = this.deps;
    const { workspace, channel } = ref;
    const botUserId = this.deps.botUserId(workspace);
    const direct = isDirect(event);
    const text = slackToPlainText(event.text ?? '', botUserId) || 'Hello';
    if (RESET.test(text)) {
      await conversation.reset(ref);
      return { decision: 'reset' };
    }
    const assistant = await assistantOf?.(ref);
    // In an assistant pane the channel that matters is the one being viewed.
    const named = assistant ? assistant.viewingChannel : direct ? undefined : channel;
    const [userName, channelName] = await Promise.all([
      users.nameOf(workspace, event.user),
      named === undefined ? Promise.resolve(undefined) : channels.nameOf(workspace, named),
    ]);
    const message: IncomingMessage = {
      platform: 'slack',
      workspace,
      channel,
      thread: ref.thread,
      messageId: event.ts,
      userId: event.user,
      userName,
      ...(channelName ? { channelName } : {}),
      ...(assistant?.viewingChannel ? { bindingChannel: assistant.viewingChannel } : {}),
      text,
    };
    const place = { workspace, channel };
    const target = createSlackReplyTarget(
      {
        workspace,
        channel,
        threadTs: ref.thread,
        messageTs: event.ts,
        userId: event.user,
        userTeam: event.user_team ?? event.team ?? workspace,
        isDm: direct,
      },
      this.deps,
    );
    // An assistant thread holds only our greeting before the first question: nothing to send.
    if (!assistant && event.thread_ts !== undefined && event.thread_ts !== event.ts) {
      // A question inside a thread: the engine may want what was said there before it.
      const before = { workspace, channel, threadTs: ref.thread, beforeTs: event.ts };
      target.earlierMessages = (limit) => readEarlierMessages(this.deps, before, limit);
    }
    target.closeInterrupted = interruptedCloser(this.deps.api, {
      ...place,
      threadTs: ref.thread,
      questionTs: event.ts,
      botUserId,
    });
    if (work.deliveries === 1) assistant?.onQuestion(message);
    const answer = conversation
      .handle(message, target, work.job)
      .catch((error: unknown) => {
        logger.error({ err: error, channel }, 'slack: answering failed');
      })
      // finally() awaits the promise its callback returns; the answer settles after finish().
      // oxlint-disable-next-line typescript/no-misused-promises
      .finally(() => work.finish());
    return { decision: 'answered', answer };
  }

  /** A short word in the thread that the reset happened (failures only logged). */
  private async confirmReset(ref: ThreadRef): Promise<void> {
    try {
      await this.deps.api.deliver(ref.workspace, 'chat.postMessage', {
        channel: ref.channel,
        thread_ts: ref.thread,
        text: RESET_REPLY,
      });
    } catch (error) {
      this.deps.logger.warn({ err: error, channel: ref.channel }, 'slack: reset reply failed');
    }
  }
}
