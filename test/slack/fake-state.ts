// The Slack workspace the fake Web API keeps: messages (with the streaming state machine),
// statuses, reactions, ephemerals, opened views. Pure state, no HTTP.

export type Args = Record<string, unknown>;
export type Reply = { ok: true; [key: string]: unknown } | { ok: false; error: string };

export interface FakeMessage {
  ts: string;
  channel: string;
  threadTs?: string;
  /** A person's message (userMessage); the bot's own have none. */
  user?: string;
  /** markdown_text as Slack holds it: start + appends + stop, or the last post/update. */
  markdown: string;
  text?: string;
  blocks: Record<string, unknown>[];
  streaming: boolean;
  startedAt: number;
  /** How the stream ended: stopStream, or expiry (no stop ever arrived). */
  ended?: 'stop' | 'expiry';
  recipientUserId?: string;
  recipientTeamId?: string;
  updates: number;
  appends: number;
  unfurlLinks?: unknown;
}

export interface SlackUserRecord {
  id: string;
  name: string;
  real_name?: string;
  team_id?: string;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  profile?: { display_name?: string };
}

export interface FakeBehaviour {
  /** Error code every startStream answers with (a workspace without the feature). */
  refuseStreaming?: string;
  /** Error code setStatus answers with (e.g. not_allowed in channels). */
  refuseStatus?: string;
  /** Streams end by themselves this long after they started (Slack: ~5 minutes). */
  streamExpiryMs: number;
}

const MARKDOWN_LIMIT = 12_000;
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const fail = (error: string): Reply => ({ ok: false, error });

export class FakeWorkspace {
  readonly messages = new Map<string, FakeMessage>();
  readonly statuses: { channel: string; threadTs: string; status: string; at: number }[] = [];
  readonly reactions = new Set<string>();
  readonly ephemerals: Args[] = [];
  readonly views: Args[] = [];
  readonly users = new Map<string, SlackUserRecord>();
  /** Channel names by id; DMs ("D…") are known without an entry. */
  readonly channels = new Map<string, string>();
  private seq = 0;

  constructor(
    readonly behaviour: FakeBehaviour,
    private readonly now: () => number,
  ) {}

  private nextTs(): string {
    this.seq += 1;
    return `${1_700_000_000 + this.seq}.${String(this.seq).padStart(6, '0')}`;
  }

  /** The message, with its stream ended if it outlived the expiry. */
  message(ts: string | undefined): FakeMessage | undefined {
    const message = ts === undefined ? undefined : this.messages.get(ts);
    if (message?.streaming && this.now() - message.startedAt > this.behaviour.streamExpiryMs) {
      message.streaming = false;
      message.ended = 'expiry';
    }
    return message;
  }

  /** Ends a stream as if Slack had expired it. */
  expire(ts: string): void {
    const message = this.messages.get(ts);
    if (message?.streaming) {
      message.streaming = false;
      message.ended = 'expiry';
    }
  }

  thread(channel: string, threadTs: string): FakeMessage[] {
    return [...this.messages.values()].filter(
      (m) => m.channel === channel && m.threadTs === threadTs,
    );
  }

  /** A person's message as Slack keeps it; the test delivers its event, if it needs one. */
  userMessage(fields: { channel: string; user: string; text: string; threadTs?: string }) {
    const ts = this.nextTs();
    const message: FakeMessage = {
      ts,
      channel: fields.channel,
      threadTs: fields.threadTs,
      user: fields.user,
      markdown: fields.text,
      text: fields.text,
      blocks: [],
      streaming: false,
      startedAt: this.now(),
      updates: 0,
      appends: 0,
    };
    this.messages.set(ts, message);
    return message;
  }

  /** conversations.replies: the parent, then its replies, in pages (the cursor is an offset). */
  replies(args: Args, botUserId: string): Reply {
    const channel = str(args.channel);
    const ts = str(args.ts);
    const parent = this.messages.get(ts ?? '');
    if (!channel || !parent || parent.channel !== channel) return fail('thread_not_found');
    const latest = str(args.latest);
    const inclusive = args.inclusive === 'true' || args.inclusive === true;
    const limit = Number(args.limit ?? 1000);
    const offset = Number(str(args.cursor) ?? 0);
    const all = [parent, ...this.thread(channel, parent.ts).filter((m) => m.ts !== parent.ts)]
      .filter((m) => latest === undefined || m.ts < latest || (inclusive && m.ts === latest))
      .sort((a, b) => (a.ts < b.ts ? -1 : 1));
    const rest = all.slice(offset + limit);
    const asReply = (m: FakeMessage) => ({
      type: 'message',
      ts: m.ts,
      thread_ts: parent.ts,
      text: m.user ? m.markdown : this.visibleText(m.ts),
      ...(m.user ? { user: m.user } : { user: botUserId, bot_id: 'BBOT' }),
    });
    const page = all.slice(offset, offset + limit);
    // Slack repeats the parent at the top of every page.
    if (offset > 0) page.unshift(parent);
    return {
      ok: true,
      messages: page.map(asReply),
      has_more: rest.length > 0,
      response_metadata: { next_cursor: rest.length > 0 ? String(offset + limit) : '' },
    };
  }

  startStream(args: Args): Reply {
    if (this.behaviour.refuseStreaming) return fail(this.behaviour.refuseStreaming);
    const channel = str(args.channel);
    const threadTs = str(args.thread_ts);
    const markdown = str(args.markdown_text);
    if (!channel) return fail('channel_not_found');
    if (!threadTs) return fail('invalid_thread_ts');
    if (!channel.startsWith('D')) {
      if (!str(args.recipient_user_id)) return fail('missing_recipient_user_id');
      if (!str(args.recipient_team_id)) return fail('missing_recipient_team_id');
    }
    if (markdown !== undefined && markdown.length > MARKDOWN_LIMIT) return fail('msg_too_long');
    const ts = this.nextTs();
    this.messages.set(ts, {
      ts,
      channel,
      threadTs,
      markdown: markdown ?? '',
      blocks: [],
      streaming: true,
      startedAt: this.now(),
      recipientUserId: str(args.recipient_user_id),
      recipientTeamId: str(args.recipient_team_id),
      updates: 0,
      appends: 0,
    });
    return { ok: true, channel, ts };
  }

  appendStream(args: Args): Reply {
    const message = this.message(str(args.ts));
    if (!message || message.channel !== args.channel) return fail('message_not_found');
    if (!message.streaming) return fail('message_not_in_streaming_state');
    const markdown = str(args.markdown_text);
    if (!markdown) return fail('invalid_arguments');
    if (markdown.length > MARKDOWN_LIMIT) return fail('msg_too_long');
    message.markdown += markdown;
    message.appends += 1;
    return { ok: true, channel: message.channel, ts: message.ts };
  }

  stopStream(args: Args): Reply {
    const message = this.message(str(args.ts));
    if (!message || message.channel !== args.channel) return fail('message_not_found');
    if (!message.streaming) return fail('message_not_in_streaming_state');
    const markdown = str(args.markdown_text);
    if (markdown) message.markdown += markdown;
    if (Array.isArray(args.blocks)) message.blocks = args.blocks as Record<string, unknown>[];
    message.streaming = false;
    message.ended = 'stop';
    return { ok: true, channel: message.channel, ts: message.ts, message: { ts: message.ts } };
  }

  postMessage(args: Args): Reply {
    const channel = str(args.channel);
    if (!channel) return fail('channel_not_found');
    if (args.markdown_text !== undefined && (args.text !== undefined || args.blocks !== undefined))
      return fail('markdown_text_conflict');
    const ts = this.nextTs();
    this.messages.set(ts, {
      ts,
      channel,
      threadTs: str(args.thread_ts),
      markdown: str(args.markdown_text) ?? str(args.text) ?? '',
      text: str(args.text),
      blocks: Array.isArray(args.blocks) ? (args.blocks as Record<string, unknown>[]) : [],
      streaming: false,
      startedAt: this.now(),
      updates: 0,
      appends: 0,
      unfurlLinks: args.unfurl_links,
    });
    return { ok: true, channel, ts };
  }

  update(args: Args): Reply {
    const message = this.message(str(args.ts));
    if (!message || message.channel !== args.channel) return fail('message_not_found');
    if (message.streaming) return fail('cant_update_message');
    if (args.markdown_text !== undefined && (args.text !== undefined || args.blocks !== undefined))
      return fail('markdown_text_conflict');
    const markdown = str(args.markdown_text);
    if (markdown !== undefined && markdown.length > MARKDOWN_LIMIT) return fail('msg_too_long');
    message.markdown = markdown ?? str(args.text) ?? message.markdown;
    message.text = str(args.text);
    message.blocks = Array.isArray(args.blocks) ? (args.blocks as Record<string, unknown>[]) : [];
    message.updates += 1;
    return { ok: true, channel: message.channel, ts: message.ts };
  }

  setStatus(args: Args): Reply {
    if (this.behaviour.refuseStatus) return fail(this.behaviour.refuseStatus);
    const channel = str(args.channel_id);
    const threadTs = str(args.thread_ts);
    if (!channel) return fail('channel_not_found');
    if (!threadTs) return fail('invalid_thread_ts');
    this.statuses.push({ channel, threadTs, status: str(args.status) ?? '', at: this.now() });
    return { ok: true };
  }

  reaction(args: Args, add: boolean): Reply {
    const key = `${str(args.channel)}:${str(args.timestamp)}:${str(args.name)}`;
    if (add) {
      if (this.reactions.has(key)) return fail('already_reacted');
      this.reactions.add(key);
    } else if (!this.reactions.delete(key)) {
      return fail('no_reaction');
    }
    return { ok: true };
  }

  userInfo(args: Args): Reply {
    const user = this.users.get(str(args.user) ?? '');
    return user ? { ok: true, user } : fail('user_not_found');
  }

  conversationInfo(args: Args): Reply {
    const id = str(args.channel) ?? '';
    if (id.startsWith('D')) return { ok: true, channel: { id, is_im: true, user: 'UALICE' } };
    const name = this.channels.get(id);
    if (name === undefined) return fail('channel_not_found');
    return { ok: true, channel: { id, name, is_channel: true, is_im: false } };
  }

  postEphemeral(args: Args): Reply {
    if (!str(args.channel) || !str(args.user)) return fail('invalid_arguments');
    this.ephemerals.push(args);
    return { ok: true, message_ts: this.nextTs() };
  }

  openView(args: Args): Reply {
    if (!str(args.trigger_id)) return fail('invalid_trigger_id');
    if (typeof args.view !== 'object' || args.view === null) return fail('invalid_arguments');
    this.views.push(args);
    return { ok: true, view: { id: `V${this.views.length}`, ...(args.view as Args) } };
  }

  /** What a reader sees as the message's main text: the markdown block if there is one. */
  visibleText(ts: string): string {
    const message = this.messages.get(ts);
    if (!message) return '';
    const markdownBlock = message.blocks.find((b) => b.type === 'markdown');
    return markdownBlock ? String(markdownBlock.text) : message.markdown;
  }
}
