// The scripted local service, answer texts and checks shared by the Slack bench rows (slack.ts,
// slack-replicas.ts, slack-oauth.ts): answers scripted by question, their pieces paced and timed.
import { startLocalService } from '../src/local-service/index.js';
import { createDefaultKnowledge } from '../src/local-service/knowledge-default.js';
import type { KnowledgePort } from '../src/local-service/knowledge-port.js';
import { sleep } from '../adapters/slack/pacing.js';
import type { FakeSlack } from '../test/slack/fake-slack.js';
import type { BenchRow } from './table.js';

export interface Timing {
  first?: number;
  end?: number;
}
export interface Script {
  pieces: string[];
  intervalMs: number;
  timing: Timing;
}

/** The local service with answers scripted by question (pieces and pace), timed as they go. */
export async function scriptedService() {
  const scripts = new Map<string, Script>();
  const base = await createDefaultKnowledge({
    refusePrivateUrls: false,
    maxFetchBytes: 1024,
    fetchTimeoutMs: 1000,
  });
  async function* timed(script: Script): AsyncIterable<string> {
    for (const [i, piece] of script.pieces.entries()) {
      if (i > 0) await sleep(script.intervalMs);
      else script.timing.first = Date.now();
      yield piece;
    }
    script.timing.end = Date.now();
  }
  const knowledge: KnowledgePort = {
    ...base,
    answer(request, signal) {
      const script = scripts.get(request.query);
      return script
        ? { pieces: timed(script), citations: () => ({}) }
        : base.answer(request, signal);
    },
  };
  const service = await startLocalService({ apiKeys: ['bench'], knowledge });
  return { service, scripts };
}

export function answerText(paragraphs: boolean): string {
  const sentence = 'The refund policy covers every order placed in the last thirty days. ';
  let text = '';
  for (let i = 0; text.length < 2000; i++)
    text += sentence + (paragraphs && i % 6 === 5 ? '\n\n' : '');
  return text.slice(0, 2000);
}

export function piecesOf(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** Whether the messages in `channel` have all finished streaming and read `text` together. */
export function answeredWhole(fake: FakeSlack, channel: string, text: string): boolean {
  const ws = fake.workspace;
  const texts = [...ws.messages.values()].filter((m) => m.channel === channel);
  return (
    texts.every((m) => !m.streaming) && texts.map((m) => ws.visibleText(m.ts)).join('') === text
  );
}

/**
 * The row of a run with Slack's tiers enforced: how many 429s the fake answered (none wanted),
 * and for which methods.
 */
export function tooManyRequestsRow(metric: string, fake: FakeSlack): BenchRow {
  const tooMany = fake.tooManyRequests;
  const byMethod = new Map<string, number>();
  for (const call of fake.calls.filter((c) => c.status === 429)) {
    byMethod.set(call.method, (byMethod.get(call.method) ?? 0) + 1);
  }
  const which = [...byMethod].map(([method, count]) => `${method} ${count}`).join(', ');
  const value = which === '' ? String(tooMany) : `${tooMany} (${which})`;
  return { area: 'slack', metric, value, target: '0', ok: tooMany === 0 };
}
