// The scripted local service and answer texts shared by the Slack bench rows (slack.ts and
// slack-replicas.ts): answers scripted by question, their pieces paced and timed.
import { startLocalService } from '../src/local-service/index.js';
import { createDefaultKnowledge } from '../src/local-service/knowledge-default.js';
import type { KnowledgePort } from '../src/local-service/knowledge-port.js';
import { sleep } from '../adapters/slack/pacing.js';

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
