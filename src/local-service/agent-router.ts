// Which agent answers a message. Kept simple and predictable:
//
// 1. Background agents never answer. Each enabled background agent's meta.tags are checked:
//    a tag applies when a content word of its criteria (stemmed, stop words and generic words
//    like "user" or "asks" removed) occurs in the query. Applied tags go to meta_json.tags.
// 2. A request for a human ("talk to a human", "speak to someone", "real person", …) is
//    answered by an enabled human-escalation agent with its human_requested_message.
// 3. An enabled pre-canned or spam-defense agent answers with its meta.default_message when its
//    name and description fit the query: at least half of the query's content words occur in
//    them (bias shifts the score; stickness helps when it answered the session last).
// 4. Otherwise the enabled user-facing agents compete. Each searches its scope (all sources
//    with use_all_sources, else its data_source_uuids); its score is its best passage score
//    relative to the best of all agents, plus half its description fit, plus 0.3 × bias, plus
//    0.3 × stickness when it answered the session's previous message. The best one answers
//    from its passages; ties go to the earliest created (General Q&A first).
// 5. No enabled user-facing agent: the chatbot says so in-band.
import type { AgentTag } from '../service/types.js';
import { termsOf } from './knowledge/words.js';
import type { Passage } from './knowledge/types.js';
import type { AgentRecord } from './records.js';

const GENERIC = new Set(
  termsOf(
    'user users asks asked asking question questions answer answers message messages mention ' +
      'mentions says said talks talking wants want request requests regarding topic something ' +
      'anything customer customers agent agents handle handles reply replies',
  ),
);

const contentTerms = (text: string): Set<string> =>
  new Set(termsOf(text).filter((term) => !GENERIC.has(term)));

/** Share of the query's content words that occur in the text (0 to 1). */
export function fit(query: string, text: string): number {
  const q = contentTerms(query);
  if (q.size === 0) return 0;
  const t = contentTerms(text);
  let shared = 0;
  for (const term of q) if (t.has(term)) shared += 1;
  return shared / q.size;
}

const HUMAN_REQUEST = [
  /\b(talk|speak|chat|connect|transfer)\w*\b.{0,40}\b(human|person|people|someone|somebody|agent|representative|operator|staff|support team)\b/i,
  /\b(real|live|actual)\s+(person|human|agent)\b/i,
  /\bhuman\s+(agent|support|help|being)\b/i,
  /^\s*(agent|human|operator|representative)\s*[.!?]*\s*$/i,
];

export function isHumanRequest(query: string): boolean {
  return HUMAN_REQUEST.some((pattern) => pattern.test(query));
}

const clamp = (value: number | undefined): number => Math.max(-1, Math.min(1, value ?? 0));

export interface AppliedTag extends AgentTag {
  agent_uuid: string;
}

export function backgroundTags(agents: AgentRecord[], query: string): AppliedTag[] {
  const queryTerms = contentTerms(query);
  const applied: AppliedTag[] = [];
  for (const agent of agents) {
    if (!agent.enabled || agent.type !== 'background') continue;
    for (const tag of agent.meta.tags ?? []) {
      const criteria = contentTerms(`${tag.criteria} ${tag.criteria === '' ? tag.name : ''}`);
      if ([...criteria].some((term) => queryTerms.has(term))) {
        applied.push({
          name: tag.name,
          color: tag.color,
          criteria: tag.criteria,
          agent_uuid: agent.uuid,
        });
      }
    }
  }
  return applied;
}

export type Route =
  | { kind: 'fixed'; agent: AgentRecord; text: string }
  | { kind: 'answer'; agent: AgentRecord; passages: Passage[] }
  | { kind: 'none' };

export interface RouteInput {
  agents: AgentRecord[];
  query: string;
  previousAgentUuid?: string;
  /** Retrieval for one agent's scope (undefined = every source of the chatbot). */
  search(sourceUuids: string[] | undefined): Promise<Passage[]>;
}

const stickBonus = (agent: AgentRecord, previous: string | undefined): number =>
  agent.uuid === previous ? 0.3 * clamp(agent.meta.stickness) : 0;

export async function routeMessage(input: RouteInput): Promise<Route> {
  const enabled = input.agents.filter((agent) => agent.enabled);
  if (isHumanRequest(input.query)) {
    const human = enabled.find((agent) => agent.type === 'human-escalation');
    if (human?.human_escalation_settings) {
      return {
        kind: 'fixed',
        agent: human,
        text: human.human_escalation_settings.human_requested_message,
      };
    }
  }

  let canned: { agent: AgentRecord; score: number } | undefined;
  for (const agent of enabled) {
    if (agent.type !== 'pre-canned' && agent.type !== 'spam-defense') continue;
    const f = fit(input.query, `${agent.name} ${agent.description}`);
    const score = f + 0.2 * clamp(agent.meta.bias) + stickBonus(agent, input.previousAgentUuid);
    if (f > 0 && score >= 0.5 && (!canned || score > canned.score)) canned = { agent, score };
  }
  if (canned) {
    return { kind: 'fixed', agent: canned.agent, text: canned.agent.meta.default_message ?? '' };
  }

  const answering = enabled.filter((agent) => agent.type === 'user-facing');
  if (answering.length === 0) return { kind: 'none' };
  const found = await Promise.all(
    answering.map((agent) => {
      if (agent.meta.use_all_sources) return input.search(undefined);
      if (agent.data_source_uuids.length === 0) return Promise.resolve([]);
      return input.search(agent.data_source_uuids);
    }),
  );
  const best = (passages: Passage[]): number => passages[0]?.score ?? 0;
  const top = Math.max(...found.map(best));
  let chosen = 0;
  let chosenScore = -Infinity;
  answering.forEach((agent, i) => {
    const relevance = top > 0 ? best(found[i] ?? []) / top : 0;
    const score =
      relevance +
      0.5 * fit(input.query, `${agent.name} ${agent.description}`) +
      0.3 * clamp(agent.meta.bias) +
      stickBonus(agent, input.previousAgentUuid);
    if (score > chosenScore) {
      chosen = i;
      chosenScore = score;
    }
  });
  return { kind: 'answer', agent: answering[chosen] as AgentRecord, passages: found[chosen] ?? [] };
}
