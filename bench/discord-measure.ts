// What the Discord bench rows measure with: waiting on the fake for an answer to show, texts
// to stream, and the per-chunk lag from a chunk reaching the service to it being visible.
import type { EngineRig } from '../test/discord/engine-rig.js';
import type { FakeMessage } from '../test/discord/fake/payloads.js';

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A wait that gives up (a failed row, not a hung bench) when the answer never comes. */
export function within<T>(promise: Promise<T>, limitMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${limitMs} ms`)), limitMs);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}
export const ms = (value: number) => `${value.toFixed(0)} ms`;

/**
 * Resolves with the time the fake saw a bot message for this question (in its thread, or a
 * reply to it when no thread could be made) satisfying the predicate.
 */
export function seen(
  rig: EngineRig,
  askedId: string,
  predicate: (content: string) => boolean,
): Promise<number> {
  const matches = (m: FakeMessage) =>
    (m.channel_id === askedId || m.message_reference?.message_id === askedId) &&
    predicate(m.content);
  return new Promise((resolve) => {
    const listener = (m: FakeMessage) => {
      if (!matches(m)) return;
      rig.fake.off('message', listener);
      rig.fake.off('edit', listener);
      resolve(performance.now());
    };
    rig.fake.on('message', listener);
    rig.fake.on('edit', listener);
  });
}

export function answerMessages(rig: EngineRig, askedId: string): FakeMessage[] {
  return rig.fake
    .botMessages()
    .filter((m) => m.channel_id === askedId || m.message_reference?.message_id === askedId);
}

export function paragraphs(prefix: string, length: number): string {
  const words: string[] = [];
  let size = 0;
  for (let i = 1; size < length; i++) {
    const word = i % 40 === 0 ? `${prefix}${i}.\n\n` : `${prefix}${i} `;
    words.push(word);
    size += word.length;
  }
  return words.join('').trim();
}

export function chunks(text: string, size: number): string[] {
  return text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
}

/** The longest common prefix of two texts. */
export function sharedPrefix(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  let i = 0;
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * One streamed answer as the bench follows it: when each chunk was handed to the service, and
 * when Discord (the fake) first showed text reaching the end of it.
 */
export interface Tracked {
  text: string;
  /** End offset of each chunk in the text, and when it was handed over. */
  ends: number[];
  handedAt: number[];
  /** (time, visible length) each time more of the answer became visible. */
  shown: [at: number, length: number][];
}

/** Per-chunk lag: from a chunk being handed over to its last character being visible. */
export function chunkLags(tracked: Tracked): number[] {
  const lags: number[] = [];
  for (const [i, end] of tracked.ends.entries()) {
    const handed = tracked.handedAt[i];
    const visible = tracked.shown.find(([, length]) => length >= end);
    if (handed !== undefined && visible) lags.push(Math.max(0, visible[0] - handed));
  }
  return lags;
}
