// Thread context: when the bot is first asked in a thread people started, the thread's earlier
// messages go to the chatbot with the question, so "what did we decide?" means something.
// This file is the shape of that text (pure); context-query.ts decides when it is sent.
// The shape is documented in docs/architecture.md ("Thread context"): keep the two in step.

/** One earlier message of a thread, as an adapter reads it (oldest first in a list). */
export interface EarlierMessage {
  /** The author's display name where they wrote. */
  author: string;
  /** Plain text (platform markup already turned into words); may span lines. */
  text: string;
  /** Written by this bot: one of its earlier answers (or notices). */
  fromAssistant: boolean;
}

export interface ThreadContextBounds {
  /** Most earlier messages included (the newest ones). */
  maxMessages: number;
  /** Most characters of the message lines together (the heading and question not counted). */
  maxChars: number;
}

export const DEFAULT_THREAD_CONTEXT_BOUNDS: Readonly<ThreadContextBounds> = Object.freeze({
  maxMessages: 20,
  maxChars: 4000,
});

/** What an admin may set (`thread-context on --messages N --chars N`). */
export const THREAD_CONTEXT_LIMITS = Object.freeze({
  messages: { min: 1, max: 100 },
  chars: { min: 200, max: 20_000 },
});

export const CONTEXT_HEADING = 'Earlier messages in this thread (oldest first):';
export const QUESTION_LABEL = 'Question:';
/** How the bot's own earlier answers are labelled instead of an author's name. */
export const ASSISTANT_LABEL = '(assistant)';
const ELLIPSIS = '…';
/** A cut message keeps at least this many characters of text, else it is left out. */
const MIN_CUT_TEXT = 20;

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function labelOf(message: EarlierMessage): string {
  if (message.fromAssistant) return ASSISTANT_LABEL;
  // A person's name can neither pose as the assistant nor break the "Name: text" shape.
  const name = oneLine(message.author).replace(/:/g, '');
  return name === '' || name === ASSISTANT_LABEL ? 'someone' : name;
}

/**
 * The context lines: one "Name: text" per message (the bot's as "(assistant): text"), oldest
 * first. The newest messages are kept: at most maxMessages, and lines (joined by newlines) of at
 * most maxChars; the oldest line that does not fit whole is cut at the end with "…" when at
 * least a few words of it fit, and everything older is left out. Empty messages are skipped.
 */
export function contextLines(
  messages: readonly EarlierMessage[],
  bounds: ThreadContextBounds = DEFAULT_THREAD_CONTEXT_BOUNDS,
): string[] {
  const lines: string[] = [];
  let used = 0;
  for (let i = messages.length - 1; i >= 0 && lines.length < bounds.maxMessages; i -= 1) {
    const message = messages[i]!;
    const text = oneLine(message.text);
    if (text === '') continue;
    const prefix = `${labelOf(message)}: `;
    const separator = lines.length === 0 ? 0 : 1;
    const room = bounds.maxChars - used - separator;
    const line = prefix + text;
    if (line.length <= room) {
      lines.push(line);
      used += separator + line.length;
      continue;
    }
    const keep = room - prefix.length - ELLIPSIS.length;
    if (keep >= MIN_CUT_TEXT) lines.push(`${prefix}${text.slice(0, keep).trimEnd()}${ELLIPSIS}`);
    break;
  }
  return lines.reverse();
}

/**
 * The query sent to the chatbot: the context block, a blank line, then "Question: " and the
 * question. With nothing to show (no earlier messages with text) it is the question alone.
 */
export function withThreadContext(
  question: string,
  messages: readonly EarlierMessage[],
  bounds: ThreadContextBounds = DEFAULT_THREAD_CONTEXT_BOUNDS,
): string {
  const lines = contextLines(messages, bounds);
  if (lines.length === 0) return question;
  return [CONTEXT_HEADING, ...lines, '', `${QUESTION_LABEL} ${question}`].join('\n');
}
