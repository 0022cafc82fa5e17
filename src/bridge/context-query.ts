// The query of the first question in a thread the bot has never answered in: the thread's
// earlier messages (read through the adapter, bounded by the workspace's setting) and the
// question. Reading the thread is best effort: any failure is logged and the question goes alone.
import type { Logger } from '../log.js';
import type { StateStore } from '../state/types.js';
import {
  DEFAULT_THREAD_CONTEXT_BOUNDS,
  withThreadContext,
  type ThreadContextBounds,
} from './thread-context.js';
import type { IncomingMessage, ReplyTarget } from './types.js';

/** The workspace's bounds, or undefined when an admin turned thread context off there. */
export async function threadContextBounds(
  state: StateStore,
  m: Pick<IncomingMessage, 'platform' | 'workspace'>,
): Promise<ThreadContextBounds | undefined> {
  const setting = await state.threadContext.get(`${m.platform}:${m.workspace}`);
  if (setting?.enabled === false) return undefined;
  return {
    maxMessages: setting?.maxMessages ?? DEFAULT_THREAD_CONTEXT_BOUNDS.maxMessages,
    maxChars: setting?.maxChars ?? DEFAULT_THREAD_CONTEXT_BOUNDS.maxChars,
  };
}

/** Never rejects: the question alone when there is no reader, it is off, or anything fails. */
export async function firstQuestionQuery(
  m: IncomingMessage,
  target: ReplyTarget,
  state: StateStore,
  log: Logger,
): Promise<string> {
  const read = target.earlierMessages?.bind(target);
  if (!read) return m.text;
  try {
    const bounds = await threadContextBounds(state, m);
    if (!bounds) return m.text;
    const earlier = await read(bounds.maxMessages);
    return withThreadContext(m.text, earlier, bounds);
  } catch (error) {
    log.warn(
      { err: error, platform: m.platform, channel: m.channel, thread: m.thread },
      'reading the thread for context failed: sending the question alone',
    );
    return m.text;
  }
}
