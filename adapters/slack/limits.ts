// Slack's documented sizes, as data: what Block Kit and the chat methods accept. Every length is
// measured on the text as sent, i.e. after escaping (escape.ts makes text longer).

export const BLOCK_KIT = {
  /** Text of a section block (mrkdwn or plain_text). */
  sectionText: 3000,
  /** One of a section's fields, and how many fields one section holds. */
  fieldText: 2000,
  fieldsPerSection: 10,
  /** Blocks in one message. */
  blocksPerMessage: 50,
  /** Elements of a context block. */
  contextElements: 10,
  /** All markdown blocks of one payload together. */
  markdownTotal: 12_000,
} as const;

export const CHAT = {
  /** markdown_text of chat.postMessage, chat.update and chat.*Stream. */
  markdownText: 12_000,
  /** The top-level `text` (Slack truncates past 40,000; we stay well inside). */
  text: 40_000,
  /** What the bridge puts in `text` beside blocks: a notification line, not the whole answer. */
  fallbackText: 3000,
} as const;

/**
 * How often Slack lets a method be called, per workspace (and per channel where Slack counts
 * per channel), as documented on each method's page (docs.slack.dev/reference/methods, "Rate
 * Limits") and in docs.slack.dev/apis/web-api/rate-limits. A tier gives a floor ("20+ per
 * minute"): we take the floor. `perMinute` counts per workspace and app.
 */
export interface MethodRate {
  /** Calls per minute per workspace; absent: Slack documents no workspace-wide figure. */
  perMinute?: number;
  /** Calls per minute per channel, besides the workspace's count ("special" methods). */
  perChannelPerMinute?: number;
  /**
   * Share of `perMinute` kept for calls that may be skipped (live updates, which the renderer
   * coalesces); the rest is kept for calls that must go out (an answer's final text), so a
   * crowd of live edits never delays a final one.
   */
  liveShare?: number;
  /** Share of `perMinute` that may go at once after a quiet spell; a quarter by default. */
  burst?: number;
}

export const SLACK_RATES: Readonly<Record<string, MethodRate>> = {
  // Tier 2 (20+ per minute): native streams open and close at this pace.
  'chat.startStream': { perMinute: 20 },
  'chat.stopStream': { perMinute: 20 },
  // Tier 4 (100+).
  'chat.appendStream': { perMinute: 100 },
  // Tier 3 (50+): edits of posted messages; 15 of the 50 for live edits, 35 for final texts.
  'chat.update': { perMinute: 50, liveShare: 0.3 },
  // Special: "1 message per second to a specific channel", and a workspace-wide limit of
  // "several hundred messages per minute" with "generous burst behavior" (chat.postMessage's
  // page): we take 300, half of them at once.
  'chat.postMessage': { perMinute: 300, perChannelPerMinute: 60, burst: 0.5 },
  // Special, with no published figure (the method's page, api.slack.com/methods/assistant.
  // threads.setStatus, says "Rate limits: Special" and no more; checked 2026-11-26): "similar
  // tier with chat.postMessage", 60 per minute per conversation (Slack's Java SDK,
  // MethodsRateLimitTier; slack-morphism paces it 1/s the same way). Neither counts it per workspace; a 429 would still block it (Retry-After, web.ts).
  'assistant.threads.setStatus': { perChannelPerMinute: 60 },
  // Tier 3 / Tier 2: the hourglass where no thread status is allowed (or none is free).
  'reactions.add': { perMinute: 50 },
  'reactions.remove': { perMinute: 20 },
  // Tier 4: the assistant pane's prompts and title (once per thread).
  'assistant.threads.setSuggestedPrompts': { perMinute: 100 },
  'assistant.threads.setTitle': { perMinute: 100 },
  // Tier 3 (internal and Marketplace apps): thread context, once per thread new to the bot.
  'conversations.replies': { perMinute: 50 },
};

/**
 * Edited (posted, then updated) replies open at once in one workspace, at most. Each needs a
 * final chat.update from the 35 a minute kept for final texts, and a slot frees only once its
 * final text is on screen, so opening them never outruns that budget for long: 15 finals at
 * once take about 15 s. Past this, and when no stream can be opened, an answer is posted once,
 * whole, when it is complete (reply.ts). 15: with Tier 2's 5 streams, 20 answers at once in one
 * workspace all show their first words at once.
 */
export const LIVE_EDITED_PER_WORKSPACE = 15;

/**
 * How long a reply posted whole waits, at most, for its thread's status or hourglass to go on
 * first (working.ts). Under load the status runs about one a second per channel and the
 * hourglass 50 a minute per workspace, so the tenth thread of a busy channel gets its sign after
 * ten seconds or more (10 s left 13 of 200 threads answered before any sign on the real clock);
 * 20 s is a third of the minute every question must be answered in.
 */
export const SIGN_BEFORE_POST_MS = 20_000;
