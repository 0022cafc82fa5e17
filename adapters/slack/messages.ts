// One reply message in a Slack thread, in either of two modes:
// - streaming: chat.startStream, then chat.appendStream with only the new text, chat.stopStream;
// - editing: chat.postMessage, then chat.update with the whole text, at most about once a second.
// A stream that Slack stops accepting (expiry, message_not_in_streaming_state) or whose earlier
// text the renderer rewrote carries on in editing mode on the same message: no text is lost.
import type { FinalContent, ReplyMessage } from '../../src/bridge/types.js';
import { SurfaceRateLimitError } from '../../src/bridge/types.js';
import { isTransientError } from './features.js';
import { feedbackBlock } from './feedback.js';
import { fallbackText, finalBlocks, noticeBlock, type SlackBlock, sourceBlocks } from './format.js';
import { errorCode, messageTs, type Pace, type SlackApi } from './web.js';

/** A whole answer as one message: its text, sources, notice and feedback buttons. */
export function finalMessage(content: FinalContent): { text: string; blocks: SlackBlock[] } {
  const blocks = [
    ...finalBlocks(content.text, content.sources, content.notice),
    ...(content.feedback ? [feedbackBlock(content.feedback.answerId)] : []),
  ];
  return {
    text: fallbackText(content.text, content.notice),
    blocks: blocks.length > 0 ? blocks : finalBlocks('…', []),
  };
}

/** Least time between two chat.update calls of one message. */
export const EDIT_INTERVAL_MS = 1000;
/** Wait before retrying an append that failed on the way or with a 5xx. */
export const TRANSIENT_RETRY_MS = 1000;
/** Transient append failures in a row after which the message is finished by editing. */
export const MAX_TRANSIENT_FAILURES = 3;

export interface MessagePlace {
  workspace: string;
  channel: string;
  threadTs: string;
}

export interface MessageOptions {
  api: SlackApi;
  place: MessagePlace;
  now: () => number;
}

/** chat.postMessage + chat.update. Also the continuation of a stream Slack stopped accepting. */
export class EditedMessage implements ReplyMessage {
  /** The message's Slack ts (see ReplyMessage.id). */
  get id(): string {
    return this.ts;
  }

  private lastEditAt: number;

  constructor(
    private readonly options: MessageOptions,
    readonly ts: string,
    private shown: string,
    editedAt?: number,
  ) {
    this.lastEditAt = editedAt ?? options.now();
  }

  /** Posts the first text; `pace` 'try': only if a token is free now (SurfaceRateLimitError). */
  static async post(
    options: MessageOptions,
    text: string,
    pace: Pace = 'wait',
  ): Promise<EditedMessage> {
    const { api, place } = options;
    const visible = text.trim() === '' ? '…' : text;
    const args = {
      channel: place.channel,
      thread_ts: place.threadTs,
      markdown_text: visible,
      unfurl_links: false,
      unfurl_media: false,
    };
    const result =
      pace === 'try'
        ? await api.call(place.workspace, 'chat.postMessage', args, 'try')
        : await api.deliver(place.workspace, 'chat.postMessage', args);
    return new EditedMessage(options, messageTs(result, 'chat.postMessage'), visible);
  }

  async update(text: string): Promise<void> {
    if (text === this.shown || text.trim() === '') return;
    const wait = this.lastEditAt + EDIT_INTERVAL_MS - this.options.now();
    if (wait > 0) throw new SurfaceRateLimitError(wait);
    const { api, place } = this.options;
    await api.call(
      place.workspace,
      'chat.update',
      { channel: place.channel, ts: this.ts, markdown_text: text },
      'try',
    );
    this.shown = text;
    this.lastEditAt = this.options.now();
  }

  async finish(content: FinalContent): Promise<void> {
    const { api, place } = this.options;
    await api.deliver(place.workspace, 'chat.update', {
      channel: place.channel,
      ts: this.ts,
      ...finalMessage(content),
    });
    this.shown = content.text;
  }
}

/**
 * The text without the closers a renderer adds to make a half-written answer safe to show
 * (a closing fence, "**", "`"). Appends cannot take them back, so they are held back until the
 * text after them arrives; Slack renders an open span while streaming.
 */
export function withoutClosers(text: string): string {
  let out = text;
  for (let i = 0; i < 3; i++) {
    const next = out.replace(/(?:\n?(?:`{3,}|~{3,})|\*\*|`)$/, '');
    if (next === out) break;
    out = next;
  }
  return out;
}

/** Native streaming; falls back to editing the same message when the stream ends early. */
export class StreamedMessage implements ReplyMessage {
  /** The message's Slack ts (see ReplyMessage.id). */
  get id(): string {
    return this.ts;
  }

  /** Text Slack has: everything appended so far. */
  private sent: string;
  private streaming = true;
  private edited?: EditedMessage;
  /** Appends in a row that got no answer or a 5xx. */
  private transientFailures = 0;

  constructor(
    private readonly options: MessageOptions,
    readonly ts: string,
    firstText: string,
  ) {
    this.sent = firstText;
  }

  /** Slack no longer streams this message: stop it if needed, continue by editing it. */
  private async toEditing(stop: boolean): Promise<EditedMessage> {
    if (stop) await this.stopQuietly();
    this.streaming = false;
    // Zero "last edit" time: the first edit may go out at once.
    this.edited ??= new EditedMessage(this.options, this.ts, this.sent, 0);
    return this.edited;
  }

  private async stopQuietly(): Promise<void> {
    if (!this.streaming) return;
    this.streaming = false;
    const { api, place } = this.options;
    try {
      await api.deliver(place.workspace, 'chat.stopStream', {
        channel: place.channel,
        ts: this.ts,
      });
    } catch (error) {
      if (errorCode(error) !== 'message_not_in_streaming_state') throw error;
    }
  }

  async update(shown: string): Promise<void> {
    if (this.edited) return this.edited.update(shown);
    const text = withoutClosers(shown);
    if (!text.startsWith(this.sent)) {
      // Earlier text was rewritten: an append cannot express that; edit the whole text instead.
      return (await this.toEditing(true)).update(shown);
    }
    const delta = text.slice(this.sent.length);
    if (delta === '') return;
    const { api, place } = this.options;
    try {
      await api.call(
        place.workspace,
        'chat.appendStream',
        { channel: place.channel, ts: this.ts, markdown_text: delta },
        'try',
      );
      this.sent = text;
    } catch (error) {
      const code = errorCode(error);
      if (code === undefined) throw error; // rate limited by our pacing or Slack's 429
      if (isTransientError(code) && ++this.transientFailures < MAX_TRANSIENT_FAILURES) {
        // No answer or a 5xx: the stream is probably still open. The renderer waits, then
        // sends the latest text, whose delta is still computed from what Slack confirmed.
        throw new SurfaceRateLimitError(TRANSIENT_RETRY_MS, `chat.appendStream: ${code}`);
      }
      // Expired or stopped on Slack's side (message_not_in_streaming_state), refused, or
      // failing again and again: carry on by editing the same message.
      return (await this.toEditing(code !== 'message_not_in_streaming_state')).update(shown);
    }
    this.transientFailures = 0;
  }

  async finish(content: FinalContent): Promise<void> {
    if (this.edited) return this.edited.finish(content);
    const { api, place } = this.options;
    if (!content.text.startsWith(this.sent)) {
      return (await this.toEditing(true)).finish(content);
    }
    const rest = content.text.slice(this.sent.length);
    const blocks = [
      ...sourceBlocks(content.sources),
      ...(content.notice ? [noticeBlock(content.notice)] : []),
      ...(content.feedback ? [feedbackBlock(content.feedback.answerId)] : []),
    ];
    try {
      this.streaming = false;
      await api.deliver(place.workspace, 'chat.stopStream', {
        channel: place.channel,
        ts: this.ts,
        ...(rest !== '' ? { markdown_text: rest } : {}),
        ...(blocks.length > 0 ? { blocks } : {}),
      });
      this.sent = content.text;
    } catch (error) {
      // Whatever went wrong, the final text must still arrive: write it by editing.
      this.streaming = errorCode(error) !== 'message_not_in_streaming_state';
      return (await this.toEditing(this.streaming)).finish(content);
    }
  }
}
