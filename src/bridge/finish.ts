// Brings an answer to its final state once the stream is over: lays the final text out over the
// messages on screen (planFinal), opens new ones in order for text beyond them, and finishes
// every opened message exactly once, the last one with the sources and the notice. When a
// message cannot be opened, the layout ends there: the rest of the answer, its sources and
// notice go into the message before it (foldRest), with a notice whenever text had to be left
// out. A reply is never left half-written without a visible sign.
import type { Logger } from '../log.js';
import type { Clock } from './clock.js';
import { attemptWithRetry, callWithRetry } from './final-calls.js';
import {
  CONTINUATION_MARKER,
  foldRest,
  noticeReserve,
  planFinal,
  type PlannedText,
} from './final-layout.js';
import type {
  AnswerRef,
  FinalContent,
  Notice,
  ReplyMessage,
  ReplyTarget,
  Source,
} from './types.js';

export interface FinalAnswer {
  text: string;
  sources: Source[];
  notice?: Notice;
  /** Votes may be cast on this answer: its last message carries the reference. */
  feedback?: AnswerRef;
}

export interface FinishContext {
  target: ReplyTarget;
  clock: Clock;
  log: Logger;
  /** Characters of text one message may hold (maxChars less room for markdown closers). */
  budget: number;
}

/** The answer's messages as the stream left them. */
export interface Screen {
  /** Messages on screen and not finished yet, in order. */
  open: ReplyMessage[];
  /** How many messages were finished early (sealed for age), and the text they ended with. */
  sealedCount: number;
  sealedText?: string;
}

interface Held {
  handle: ReplyMessage;
  planned: PlannedText;
}

export async function finishAnswer(
  ctx: FinishContext,
  answer: FinalAnswer,
  screen: Screen,
): Promise<void> {
  const { texts } = planFinal(answer.text, ctx.budget, {
    sealedText: screen.sealedText,
    openCount: screen.open.length,
    lastReserve: noticeReserve(answer.notice),
    needsOne: screen.sealedCount === 0 || answer.notice !== undefined || answer.sources.length > 0,
  });
  // planFinal gives every open message a text; should it ever not, none is left unfinished.
  const count = Math.max(texts.length, screen.open.length);
  // A message is finished only once the next one is on screen: until then it may still have to
  // take the rest of the answer (finish is final, it can be called only once).
  let held: Held | undefined;
  for (let i = 0; i < count; i++) {
    const planned = texts[i] ?? { text: CONTINUATION_MARKER, start: answer.text.length };
    let handle = screen.open[i];
    if (!handle) {
      const first = planned.text || answer.notice?.text || CONTINUATION_MARKER;
      const opened = await attemptWithRetry(ctx.clock, () => ctx.target.openMessage(first));
      if (!opened.ok) {
        await foldIntoHeld(ctx, answer, held, { error: opened.error, missing: count - i, screen });
        return;
      }
      handle = opened.value;
    }
    if (held) await finishMessage(ctx, held.handle, { text: held.planned.text, sources: [] });
    held = { handle, planned };
  }
  if (held) {
    await finishMessage(ctx, held.handle, {
      text: held.planned.text,
      sources: answer.sources,
      ...(answer.notice ? { notice: answer.notice } : {}),
      ...(answer.feedback ? { feedback: answer.feedback } : {}),
    });
  }
}

/** Ends the answer in the last message that could be posted; logs the refusal once, at warn. */
async function foldIntoHeld(
  ctx: FinishContext,
  answer: FinalAnswer,
  held: Held | undefined,
  refusal: { error: unknown; missing: number; screen: Screen },
): Promise<void> {
  const detail = {
    err: refusal.error,
    unopenedMessages: refusal.missing,
    sealedMessages: refusal.screen.sealedCount,
  };
  if (!held) {
    // Nothing open is left to carry the rest: the sealed messages (if any) are final already.
    ctx.log.warn(
      { ...detail, sources: answer.sources.length, notice: answer.notice?.kind },
      'reply message could not be opened: the rest of the answer is not shown',
    );
    return;
  }
  const folded = foldRest(answer.text, ctx.budget, held.planned.start, answer.notice);
  ctx.log.warn(
    { ...detail, complete: folded.complete },
    folded.complete
      ? 'reply message could not be opened: the rest went into the message before it'
      : 'reply message could not be opened: the answer ends early, with a notice',
  );
  await finishMessage(ctx, held.handle, {
    text: folded.text,
    sources: answer.sources,
    ...(folded.notice ? { notice: folded.notice } : {}),
    // Votes are for the answer as given: not for one cut short on screen.
    ...(answer.feedback && folded.complete ? { feedback: answer.feedback } : {}),
  });
}

/** A message's final state, retried on rate limits; a refusal is logged and the answer goes on. */
export async function finishMessage(
  ctx: Pick<FinishContext, 'clock' | 'log'>,
  handle: ReplyMessage,
  content: FinalContent,
): Promise<void> {
  await callWithRetry(ctx.clock, ctx.log, 'finish reply', () => handle.finish(content));
}
