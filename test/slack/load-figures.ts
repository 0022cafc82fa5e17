// What a load run shows in each thread, read from the fake's record of calls: when the first
// sign of work appeared (a thread status, the hourglass, or the first words), when the answer
// was on screen in full, whether it reads whole, and whether a status or the hourglass came
// before the first words. Shared by test/slack/load.test.ts and the `npm run bench` load rows.
import type { FakeCall, FakeSlack } from './fake-slack.js';

export interface AskedThread {
  channel: string;
  /** The thread's root: the question's own ts for a mention at the top of a channel. */
  thread: string;
  /** When the question was sent (the fake's clock). */
  askedAt: number;
}

export interface LoadFigures {
  /** Per answered thread: ms from the question to its first sign of work. */
  firstSignMs: number[];
  /** Per answered thread: ms from the question to its final text on screen. */
  answeredMs: number[];
  /** Threads whose messages, all finished, read exactly the answer. */
  whole: number;
  /** Threads where a status or the hourglass was on before the first words. */
  workShownFirst: number;
  /** Threads showing some sign of work (status, hourglass, first words) before the full answer. */
  workBeforeAnswer: number;
}

const VISIBLE = new Set([
  'chat.postMessage',
  'chat.startStream',
  'chat.appendStream',
  'chat.stopStream',
  'chat.update',
]);

export function loadFigures(fake: FakeSlack, threads: AskedThread[], answer: string): LoadFigures {
  const ok = fake.calls.filter((call) => call.status === 200 && call.reply?.ok === true);
  const figures: LoadFigures = {
    firstSignMs: [],
    answeredMs: [],
    whole: 0,
    workShownFirst: 0,
    workBeforeAnswer: 0,
  };
  const ws = fake.workspace;
  for (const { channel, thread, askedAt } of threads) {
    const messages = ws.thread(channel, thread).filter((m) => m.user === undefined);
    const own = new Set(messages.map((m) => m.ts));
    const inThread = (call: FakeCall) => {
      const { args } = call;
      if (args.channel !== channel && args.channel_id !== channel) return false;
      return args.thread_ts === thread || own.has(String(args.ts)) || args.timestamp === thread;
    };
    const mine = ok.filter(inThread);
    const work = mine.find(
      (c) =>
        (c.method === 'assistant.threads.setStatus' && c.args.status !== '') ||
        c.method === 'reactions.add',
    );
    const visible = mine.filter((c) => VISIBLE.has(c.method));
    const first = visible[0];
    const last = visible.at(-1);
    if (!first || !last) continue;
    figures.firstSignMs.push(Math.min(work?.at ?? Infinity, first.at) - askedAt);
    figures.answeredMs.push(last.at - askedAt);
    if (work && work.at <= first.at) figures.workShownFirst += 1;
    if ((work && work.at < last.at) || first !== last) figures.workBeforeAnswer += 1;
    const texts = messages.map((m) => ws.visibleText(m.ts));
    if (messages.every((m) => !m.streaming) && texts.join('') === answer) figures.whole += 1;
  }
  return figures;
}

/** Answers on screen per minute over the run: all of them, over the time the last one took. */
export function answersPerMinute(figures: LoadFigures): number {
  const last = Math.max(...figures.answeredMs);
  return last > 0 ? Math.round((figures.answeredMs.length * 60_000) / last) : 0;
}
