// A reply posted once, whole, when the answer is final: one chat.postMessage with the text, the
// sources, the notice and the feedback buttons. The mode for a busy workspace (reply.ts): it
// spends no Tier 2 stream calls and no Tier 3 edits, only chat.postMessage's allowance of about
// one a second per channel, so hundreds of answers at once all arrive within a minute. Until
// then the thread's working indicator (working.ts) is the sign of work, and its first words are
// counted (first-words metric) when the post landed, not when the message was planned.
import type { ShownLater } from '../../src/bridge/observer.js';
import type { FinalContent, ReplyMessage } from '../../src/bridge/types.js';
import { finalMessage, type MessageOptions } from './messages.js';

export class PostedOnce implements ReplyMessage, ShownLater {
  private posted = false;
  private landed!: () => void;
  /** Resolves once the post is in the thread (never, if it failed). */
  readonly shown = new Promise<void>((resolve) => (this.landed = resolve));

  constructor(
    private readonly options: MessageOptions,
    /** Resolves when the post may go out (the thread's working indicator is on). */
    private readonly ready: () => Promise<void> = async () => {},
  ) {}

  /** Nothing goes out before the end: the text so far is the renderer's to keep. */
  async update(_text: string): Promise<void> {}

  async finish(content: FinalContent): Promise<void> {
    if (this.posted) return;
    await this.ready();
    const { api, place } = this.options;
    await api.deliver(place.workspace, 'chat.postMessage', {
      channel: place.channel,
      thread_ts: place.threadTs,
      ...finalMessage(content),
      unfurl_links: false,
      unfurl_media: false,
    });
    this.posted = true;
    this.landed();
  }
}
