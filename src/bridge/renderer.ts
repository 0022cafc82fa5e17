// Shows one answer on a reply surface while it streams, on a time budget: the first words as
// soon as there are any, then coalesced updates no closer than limits.minUpdateMs per message
// (latest text wins, one call in flight per message, none when nothing changed). A
// self-scheduling timer drives it; nothing polls. Text beyond limits.maxChars continues in a
// new message cut at a natural boundary, and a message about to reach limits.maxMessageAgeMs
// is finished early ("sealed") and the answer continues in a new one. finish() hands the
// messages to finishAnswer (finish.ts), which finishes every one of them, whatever happened.
import type { Logger } from '../log.js';
import type { Clock, TimerHandle } from './clock.js';
import { scanFences } from './fences.js';
import { finishAnswer, finishMessage, type FinalAnswer, type FinishContext } from './finish.js';
import { safeMarkdownParts } from './safe-markdown.js';
import { closeSuffix, nextCut, reopenPrefix } from './split.js';
import { SurfaceRateLimitError, type ReplyMessage, type ReplyTarget } from './types.js';

export type { FinalAnswer } from './finish.js';

export interface RendererOptions {
  clock: Clock;
  logger: Logger;
  /** Raw answer so far → text to show (live citation footnotes). Default: as is. */
  transform?: (raw: string) => string;
}

interface Slot {
  /** Where this message's body starts in the display text, and ends once frozen. */
  start: number;
  end?: number;
  /** Re-opens a code block cut by the previous message. */
  prefix: string;
  handle?: ReplyMessage;
  openedAt: number;
  /** Text the message should show / last shown. */
  wanted: string;
  shown: string;
  sentAt: number;
  retryAt: number;
  inFlight?: Promise<void>;
  failures: number;
  /** Gave up on live updates after repeated errors (finish is still attempted). */
  muted: boolean;
  sealing: boolean;
  sealed: boolean;
}

// Room kept free in every part for the closers safeMarkdown may add ("\n```", "`", "**").
const SAFE_RESERVE = 8;
const MAX_SEND_FAILURES = 3;

export class Renderer {
  private raw = '';
  private display = '';
  private dirty = false;
  private closed = false;
  private readonly slots: Slot[] = [];
  private readonly seals: Promise<void>[] = [];
  private timer: TimerHandle | undefined;
  private timerAt = Infinity;
  private workingTimer: TimerHandle | undefined;
  private readonly budget: number;
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly transform: (raw: string) => string;

  constructor(
    private readonly target: ReplyTarget,
    options: RendererOptions,
  ) {
    this.clock = options.clock;
    this.log = options.logger;
    this.transform = options.transform ?? ((raw) => raw);
    const { maxChars } = target.limits;
    this.budget = maxChars - (maxChars >= 100 ? SAFE_RESERVE : 0);
  }

  /** Shows the working indicator now and keeps it fresh while no message is growing. */
  start(): void {
    this.refreshWorking();
  }

  /** The whole raw answer so far. Cheap: the work happens when an update is due. */
  push(raw: string): void {
    if (this.closed || raw === this.raw) return;
    this.raw = raw;
    this.dirty = true;
    // A call in flight pumps when it lands; a pending timer pumps when due, unless it is a
    // far-off one (message age) and an update could go out sooner.
    if (this.slots.some((s) => s.inFlight !== undefined)) return;
    if (this.timer === undefined || this.timerAt > this.nextUpdateDue()) this.pump();
  }

  /** When the growing message may next be updated (or opened). */
  private nextUpdateDue(): number {
    const slot = this.slots[this.slots.length - 1];
    if (!slot?.handle) return slot?.retryAt ?? 0;
    return Math.max(slot.sentAt + this.target.limits.minUpdateMs, slot.retryAt);
  }

  /** Number of messages opened so far. */
  get messageCount(): number {
    return this.slots.filter((s) => s.handle).length;
  }

  async finish(answer: FinalAnswer): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cancelTimer();
    if (this.workingTimer !== undefined) this.clock.clearTimer(this.workingTimer);
    // Let calls in flight land first, so a finish never overtakes an update.
    await Promise.all(this.slots.map((s) => s.inFlight));
    await Promise.all(this.seals);
    const sealed = this.slots.filter((s) => s.sealed);
    const lastSealed = sealed[sealed.length - 1];
    // A slot that never opened (given up on after failures) is skipped: final texts go to the
    // messages that exist, new ones are opened only for text beyond them.
    await finishAnswer(this.finishContext(), answer, {
      open: this.slots.flatMap((s) => (!s.sealed && s.handle ? [s.handle] : [])),
      sealedCount: sealed.length,
      sealedText: lastSealed ? this.display.slice(0, lastSealed.end) : undefined,
    });
  }

  // ---- live updates ----

  private pump(): void {
    if (this.closed) return;
    this.cancelTimer();
    this.layout();
    const now = this.clock.now();
    let wake = this.sealDue(now);
    for (const [i, slot] of this.slots.entries()) {
      if (slot.sealing || slot.muted || slot.inFlight || slot.wanted === slot.shown) continue;
      if (!slot.handle) {
        if (slot.wanted.trim() === '') continue;
        // Messages appear in order: open this one only once the one before is on screen.
        const before = this.slots[i - 1];
        if (before && !before.handle && !before.muted) break;
      }
      const due = slot.handle
        ? Math.max(slot.sentAt + this.target.limits.minUpdateMs, slot.retryAt)
        : slot.retryAt;
      if (due <= now) this.send(slot);
      else wake = Math.min(wake, due);
    }
    if (wake !== Infinity) {
      this.timerAt = wake;
      this.timer = this.clock.setTimer(() => {
        this.timer = undefined;
        this.timerAt = Infinity;
        this.pump();
      }, wake - now);
    }
  }

  /** Recomputes what each message should show from the latest raw text. */
  private layout(): void {
    if (!this.dirty) return;
    this.dirty = false;
    const display = this.transform(this.raw);
    this.display = display;
    const regions = scanFences(display);
    let current = this.current();
    // Text beyond one message continues in the next, cut where the final split would cut.
    while (current.prefix.length + display.length - current.start > this.budget) {
      const room = this.budget - current.prefix.length;
      const end = nextCut(display, regions, current.start, room);
      this.freeze(current, end, closeSuffix(display, regions, end, room));
      current = this.newSlot(end, reopenPrefix(regions, end, this.budget));
    }
    current.wanted = this.visible(current.prefix + display.slice(current.start));
  }

  private current(): Slot {
    const last = this.slots[this.slots.length - 1];
    if (last && last.end === undefined) return last;
    return this.newSlot(last?.end ?? 0, '');
  }

  private newSlot(start: number, prefix: string): Slot {
    const slot: Slot = {
      start,
      prefix,
      openedAt: 0,
      wanted: '',
      shown: '',
      sentAt: 0,
      retryAt: 0,
      failures: 0,
      muted: false,
      sealing: false,
      sealed: false,
    };
    this.slots.push(slot);
    return slot;
  }

  private freeze(slot: Slot, end: number, suffix: string): void {
    slot.end = end;
    slot.wanted = this.visible(slot.prefix + this.display.slice(slot.start, end) + suffix);
  }

  /**
   * Intermediate text made safe to show; without its closers if they would not fit (the body
   * still only grows as the text grows, see safe-markdown.ts).
   */
  private visible(text: string): string {
    const { body, closers } = safeMarkdownParts(text);
    return body.length + closers.length <= this.target.limits.maxChars ? body + closers : body;
  }

  private send(slot: Slot): void {
    const text = slot.wanted;
    slot.sentAt = this.clock.now();
    const handle = slot.handle;
    const call = handle
      ? handle.update(text)
      : this.target.openMessage(text).then((opened) => {
          slot.handle = opened;
          slot.openedAt = this.clock.now();
        });
    slot.inFlight = call
      .then(
        () => {
          slot.shown = text;
          slot.failures = 0;
        },
        (error: unknown) => this.sendFailed(slot, error),
      )
      .finally(() => {
        slot.inFlight = undefined;
        this.pump();
      });
  }

  private sendFailed(slot: Slot, error: unknown): void {
    if (error instanceof SurfaceRateLimitError) {
      slot.retryAt = this.clock.now() + error.retryAfterMs;
      return;
    }
    slot.failures += 1;
    slot.retryAt = this.clock.now() + this.target.limits.minUpdateMs;
    slot.muted = slot.failures >= MAX_SEND_FAILURES;
    this.log.warn({ err: error, muted: slot.muted }, 'reply update failed');
  }

  // ---- message age ----

  /** Seals messages about to reach maxMessageAgeMs; returns when the next one will be due. */
  private sealDue(now: number): number {
    const maxAge = this.target.limits.maxMessageAgeMs;
    if (!maxAge) return Infinity;
    const margin = Math.min(30_000, maxAge / 5);
    let wake = Infinity;
    for (const slot of this.slots) {
      if (!slot.handle || slot.sealing) continue;
      const due = slot.openedAt + maxAge - margin;
      if (due > now) {
        wake = Math.min(wake, due);
        continue;
      }
      if (slot.end === undefined) this.cutCurrentForSeal(slot);
      this.seal(slot);
    }
    return wake;
  }

  /** Ends the growing message at the last natural boundary; the rest moves to a new one. */
  private cutCurrentForSeal(slot: Slot): void {
    const display = this.display;
    const length = display.length - slot.start;
    let end = display.length;
    if (length > 1 && !/\s$/.test(display)) {
      end = nextCut(display, scanFences(display), slot.start, length);
    }
    const regions = scanFences(display);
    this.freeze(slot, end, closeSuffix(display, regions, end));
    const next = this.newSlot(end, reopenPrefix(regions, end, this.budget));
    next.wanted = this.visible(next.prefix + display.slice(end));
  }

  private seal(slot: Slot): void {
    slot.sealing = true;
    const handle = slot.handle!;
    this.seals.push(
      (async () => {
        await slot.inFlight;
        await finishMessage(this.finishContext(), handle, { text: slot.wanted, sources: [] });
        slot.sealed = true;
        this.refreshWorking();
      })(),
    );
  }

  // ---- working indicator ----

  private refreshWorking(): void {
    if (this.closed) return;
    const growing = this.slots.some((s) => s.handle && s.end === undefined);
    if (!growing) {
      this.target.showWorking().catch((error: unknown) => {
        this.log.debug({ err: error }, 'working indicator failed');
      });
    }
    const every = this.target.limits.workingRefreshMs;
    if (every && every > 0) {
      if (this.workingTimer !== undefined) this.clock.clearTimer(this.workingTimer);
      this.workingTimer = this.clock.setTimer(() => {
        this.workingTimer = undefined;
        this.refreshWorking();
      }, every);
    }
  }

  private finishContext(): FinishContext {
    return { target: this.target, clock: this.clock, log: this.log, budget: this.budget };
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.timerAt = Infinity;
  }
}
