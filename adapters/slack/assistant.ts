// Slack's AI side pane, through Bolt's Assistant middleware. A new thread there gets the greeting
// and suggested prompts set for the channel the person is viewing (else the workspace's, else
// the defaults); the viewing context lives in the state store, so every replica reads it; a
// message there takes the ordinary answer path (EventRouter: dedup, arrival order, the engine's
// thread lock, native streaming) with the chatbot of the channel viewed, and the thread's first
// question becomes its title. Calls go through our paced SlackApi, not Bolt's client helpers,
// so they share the workspace's rate budget and metrics with every other call.
import { Assistant, type AssistantConfig } from '@slack/bolt';
import {
  SUGGESTED_PROMPTS_TITLE,
  effectiveAssistantSettings,
  threadTitle,
} from '../../src/bridge/assistant.js';
import { threadKey, type IncomingMessage, type ThreadRef } from '../../src/bridge/types.js';
import type { Logger } from '../../src/log.js';
import { VIEWING_CONTEXT_TTL_MS } from '../../src/state/index.js';
import type { StateStore, ViewingContext } from '../../src/state/types.js';
import {
  DEDUP_TTL_MS,
  type AssistantRoute,
  type EventEnvelope,
  type EventRouter,
  type SlackMessageEvent,
} from './events.js';
import type { SlackApi } from './web.js';

type ContextStore = NonNullable<AssistantConfig['threadContextStore']>;
type StoreArgs = Parameters<ContextStore['get']>[0];
/** Slack's shape of a viewing context (assistant_thread.context, Bolt's thread context). */
type SlackContext = Awaited<ReturnType<ContextStore['get']>>;

export interface SlackAssistantDeps {
  api: SlackApi;
  state: StateStore;
  router: EventRouter;
  logger: Logger;
  /** Runs work after the event is acknowledged (graceful shutdown waits for it). */
  track(job: Promise<unknown>): void;
}

interface AssistantThread {
  workspace: string;
  /** The DM channel the pane's thread lives in. */
  channel: string;
  thread: string;
  context: SlackContext;
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** Where the event's thread is; undefined when the payload does not say. */
function threadOf(payload: unknown, body: unknown): AssistantThread | undefined {
  const event = (payload ?? {}) as Record<string, unknown>;
  const envelope = (body ?? {}) as EventEnvelope & { team_id?: string };
  const pane = (event.assistant_thread ?? {}) as Record<string, unknown>;
  const channel = text(pane.channel_id) ?? text(event.channel);
  const thread = text(pane.thread_ts) ?? text(event.thread_ts);
  const context = (pane.context ?? {}) as SlackContext;
  const workspace = text(envelope.team_id) ?? text(context.team_id) ?? text(event.team);
  if (!channel || !thread || !workspace) return undefined;
  return { workspace, channel, thread, context };
}

function keyOf(thread: Pick<AssistantThread, 'workspace' | 'channel' | 'thread'>): string {
  return threadKey({ platform: 'slack', ...thread });
}

function fromSlack(context: SlackContext): ViewingContext {
  return {
    ...(text(context.channel_id) ? { channel: context.channel_id } : {}),
    ...(text(context.team_id) ? { workspace: context.team_id } : {}),
    ...(text(context.enterprise_id) ? { enterprise: context.enterprise_id! } : {}),
  };
}

function toSlack(context: ViewingContext): SlackContext {
  return {
    ...(context.channel ? { channel_id: context.channel } : {}),
    ...(context.workspace ? { team_id: context.workspace } : {}),
    ...(context.enterprise ? { enterprise_id: context.enterprise } : {}),
  };
}

/** Bolt's ThreadContextStore on the state store (Bolt's default keeps it in message metadata). */
function stateThreadContextStore(state: StateStore): ContextStore {
  return {
    async get(args: StoreArgs) {
      const thread = threadOf(args.payload, args.body);
      const stored = thread && (await state.viewingContexts.get(keyOf(thread)));
      return stored ? toSlack(stored) : {};
    },
    async save(args: StoreArgs) {
      const thread = threadOf(args.payload, args.body);
      if (!thread) return;
      await state.viewingContexts.set(keyOf(thread), fromSlack(thread.context));
    },
  };
}

export function createSlackAssistant(deps: SlackAssistantDeps): Assistant {
  const { state, track } = deps;
  const lookup = (ref: ThreadRef) => assistantRoute(deps, ref);
  // A pane question taken over from a dead replica finds its route the same way.
  deps.router.assistantLookup = lookup;
  return new Assistant({
    threadContextStore: stateThreadContextStore(state),
    threadStarted: async ({ payload, body, saveThreadContext }) => {
      // Saved before the event is acknowledged: a question sent right after finds it.
      await saveThreadContext();
      const thread = threadOf(payload, body);
      if (!thread) return;
      track(greet(deps, thread, (body as EventEnvelope).event_id));
    },
    threadContextChanged: async ({ payload, body, saveThreadContext }) => {
      const thread = threadOf(payload, body);
      const before = thread && (await state.viewingContexts.get(keyOf(thread)));
      await saveThreadContext();
      if (thread) track(refreshPrompts(deps, thread, before?.channel));
    },
    userMessage: async ({ payload, body }) => {
      const event = payload as unknown as SlackMessageEvent;
      const envelope = body as EventEnvelope;
      const received = deps.router.receive(event, envelope, lookup);
      track(received.done);
      // Acknowledged once kept, as every other message (index.ts).
      await received.kept;
    },
  });
}

/** The greeting, then the suggested prompts, for the channel being viewed. Failures logged. */
async function greet(
  deps: SlackAssistantDeps,
  thread: AssistantThread,
  eventId: string | undefined,
): Promise<void> {
  const { api, state, logger } = deps;
  // A retried or doubly delivered thread start greets once.
  if (eventId && !(await state.dedup.claim(`slack:event:${eventId}`, DEDUP_TTL_MS))) return;
  const viewing = fromSlack(thread.context).channel;
  const settings = await effectiveAssistantSettings(state, 'slack', thread.workspace, viewing);
  const where = { channel: thread.channel, thread: thread.thread };
  try {
    await api.deliver(thread.workspace, 'chat.postMessage', {
      channel: thread.channel,
      thread_ts: thread.thread,
      text: settings.greeting,
    });
  } catch (error) {
    logger.warn({ err: error, ...where }, 'slack: assistant greeting failed');
  }
  await suggest(deps, thread, settings.prompts);
}

/** Shows the prompts under the thread (none: nothing is called). Failures logged. */
async function suggest(
  deps: SlackAssistantDeps,
  thread: AssistantThread,
  prompts: readonly string[],
): Promise<void> {
  if (prompts.length === 0) return;
  try {
    await deps.api.deliver(thread.workspace, 'assistant.threads.setSuggestedPrompts', {
      channel_id: thread.channel,
      thread_ts: thread.thread,
      title: SUGGESTED_PROMPTS_TITLE,
      prompts: prompts.map((prompt) => ({ title: prompt, message: prompt })),
    });
  } catch (error) {
    deps.logger.warn(
      { err: error, channel: thread.channel, thread: thread.thread },
      'slack: suggested prompts failed',
    );
  }
}

/**
 * Before the first question, the prompts follow the person to a channel whose prompts differ
 * (the greeting stays: it is a message already in the thread). Failures logged.
 */
async function refreshPrompts(
  deps: SlackAssistantDeps,
  thread: AssistantThread,
  previousChannel: string | undefined,
): Promise<void> {
  const { state } = deps;
  const viewing = fromSlack(thread.context).channel;
  if (viewing === previousChannel) return;
  if (await state.sessions.get(keyOf(thread))) return;
  const [was, now] = await Promise.all([
    effectiveAssistantSettings(state, 'slack', thread.workspace, previousChannel),
    effectiveAssistantSettings(state, 'slack', thread.workspace, viewing),
  ]);
  const same =
    was.prompts.length === now.prompts.length && was.prompts.every((p, i) => p === now.prompts[i]);
  if (same) return;
  // Slack keeps the list shown when there are none to send; the empty case is left as it is.
  await suggest(deps, thread, now.prompts);
}

/**
 * How a message in this thread is answered: undefined for a DM thread that is no assistant
 * thread (no viewing context was ever stored for it), which is answered as any DM.
 */
async function assistantRoute(
  deps: SlackAssistantDeps,
  ref: ThreadRef,
): Promise<AssistantRoute | undefined> {
  const context = await deps.state.viewingContexts.get(threadKey(ref));
  if (!context) return undefined;
  return {
    ...(context.channel ? { viewingChannel: context.channel } : {}),
    onQuestion: (message) => deps.track(titleThread(deps, ref, message)),
  };
}

/** The thread's first question, shortened, becomes its title (once, across replicas). */
async function titleThread(
  deps: SlackAssistantDeps,
  ref: ThreadRef,
  message: IncomingMessage,
): Promise<void> {
  const title = threadTitle(message.text);
  if (title === '') return;
  const claim = `slack:assistant-title:${threadKey(ref)}`;
  // One title per thread, the first question's, for as long as the thread is known.
  if (!(await deps.state.dedup.claim(claim, VIEWING_CONTEXT_TTL_MS))) return;
  try {
    await deps.api.deliver(ref.workspace, 'assistant.threads.setTitle', {
      channel_id: ref.channel,
      thread_ts: ref.thread,
      title,
    });
  } catch (error) {
    deps.logger.warn(
      { err: error, channel: ref.channel, thread: ref.thread },
      'slack: assistant thread title failed',
    );
  }
}
