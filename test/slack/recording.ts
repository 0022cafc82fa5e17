// A Conversation that records what the adapter hands it and can script a reply on the target,
// for testing routing and the reply surface without the engine.
import type {
  AnswerJob,
  Conversation,
  FinalContent,
  IncomingMessage,
  ReplyTarget,
  ThreadRef,
} from '../../src/bridge/types.js';
import { SurfaceRateLimitError, threadKey } from '../../src/bridge/types.js';

export type Script = (target: ReplyTarget, message: IncomingMessage) => Promise<void>;

export class RecordingConversation implements Conversation {
  readonly handled: { message: IncomingMessage; target: ReplyTarget; job?: AnswerJob }[] = [];
  readonly sessions = new Set<string>();
  private waiters: ((entry: { message: IncomingMessage; target: ReplyTarget }) => void)[] = [];

  constructor(public script: Script = simpleAnswer('Hello there.')) {}

  async handle(message: IncomingMessage, target: ReplyTarget, job?: AnswerJob): Promise<void> {
    const entry = { message, target, ...(job ? { job } : {}) };
    this.handled.push(entry);
    this.sessions.add(threadKey(message));
    for (const waiter of this.waiters.splice(0)) waiter(entry);
    await this.script(target, message);
  }

  async hasSession(thread: ThreadRef): Promise<boolean> {
    return this.sessions.has(threadKey(thread));
  }

  /** Threads reset, in order. As in the engine, a reset thread stays known (hasSession). */
  readonly resets: string[] = [];

  async reset(thread: ThreadRef): Promise<void> {
    this.resets.push(threadKey(thread));
  }

  next(): Promise<{ message: IncomingMessage; target: ReplyTarget }> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}

/** Opens with the text's first word, updates word by word, finishes with the whole. */
export function simpleAnswer(text: string, final: Partial<FinalContent> = {}): Script {
  return async (target) => {
    await target.showWorking();
    const words = text.split(/(?<= )/);
    const message = await target.openMessage(words[0] ?? '');
    let shown = words[0] ?? '';
    for (const word of words.slice(1)) {
      shown += word;
      try {
        await message.update(shown);
      } catch (error) {
        // Too soon: a real renderer waits and sends the latest text; the finish carries it here.
        if (!(error instanceof SurfaceRateLimitError)) throw error;
      }
    }
    await target.stopWorking();
    await message.finish({ text, sources: [], ...final });
  };
}
