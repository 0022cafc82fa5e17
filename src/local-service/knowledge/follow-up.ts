// How the session's earlier turns take part in a question, as conversational retrieval does it:
// a question that stands on its own is searched and answered alone, exactly as if asked fresh
// (the history never pulls it off topic). Only a question that points back ("how do I install
// it?", "and for Discord?", "what about …") or is too short to stand alone borrows the terms
// of its topic, and then only to break near-ties: the history may lift a passage by at most a
// share of what the question's own terms score there, so it never outranks the question.
// What the last answer cited is searched first for such a question: "is it on by default?"
// after an answer from the ws docs asks the ws docs.
import { termsOf, tokenize } from './terms.js';
import type { KnowledgeIndex, Passage, SearchOptions } from './types.js';

export interface EarlierTurn {
  query: string;
  /** The data sources the turn's answer cited. */
  sources?: readonly string[];
}

/** Words that point back at an earlier turn wherever they stand. */
const POINTING = new Set(
  'it its they them their theirs themselves he she him her his this these those'.split(' '),
);
/** "that" and "there" point back only at the end or before a stop word ("fix that", "is that
 * it"); elsewhere they are a relative pronoun or "is there a …". */
const POINTING_AT_END = new Set(['that', 'there']);
/** Openings that continue the previous question: "and for Discord?", "what about …". */
const CONTINUES =
  /^\s*(?:and|also|or|but|so|then|what\s+about|how\s+about|same\s+(?:for|with|on|in)|what\s+else|anything\s+else|tell\s+me\s+more|more\s+on)\b/i;
/** A short question that names its subject completely: "what is chatbridge?". */
const DEFINES = /^\s*(?:what|who)\s+(?:is|are|was|were)\s+\S|^\s*(?:define|explain)\s+\S/i;
/** "which one", "the other ones": a choice among what was just discussed. */
const CHOOSES_AMONG = /\b(?:which|the\s+other|another|that|this)\s+ones?\b/i;
/** A question with fewer terms of its own than this cannot stand alone. */
const MIN_OWN_TERMS = 2;
/** At most this many earlier questions make up a topic (the latest and the ones it continues). */
const MAX_TOPIC_TURNS = 3;

const isStopWord = (word: string) => termsOf(word).length === 0;

/** Whether the question leans on the conversation before it. */
export function isFollowUp(query: string): boolean {
  if (CONTINUES.test(query) || CHOOSES_AMONG.test(query)) return true;
  // "it's" is read as "it" ("s" is the tail of the contraction).
  const words = tokenize(query.toLowerCase()).filter((word) => word !== 's');
  const pointing = words.some((word, i) => {
    if (POINTING.has(word)) return true;
    if (!POINTING_AT_END.has(word)) return false;
    const next = words[i + 1];
    return next === undefined || (word === 'that' && isStopWord(next));
  });
  if (pointing) return true;
  const own = new Set(termsOf(query)).size;
  return own < MIN_OWN_TERMS && !(own === 1 && DEFINES.test(query));
}

/**
 * The text of the topic a follow-up continues: the latest earlier question, and before it
 * the ones that question itself continued. Undefined for a question that stands alone.
 */
export function topicOf(query: string, history: readonly EarlierTurn[]): string | undefined {
  if (history.length === 0 || !isFollowUp(query)) return undefined;
  const topic: string[] = [];
  for (let i = history.length - 1; i >= 0 && topic.length < MAX_TOPIC_TURNS; i--) {
    const earlier = history[i]!.query;
    topic.unshift(earlier);
    if (!isFollowUp(earlier)) break; // the question that set the topic
  }
  const own = new Set(termsOf(query));
  const lent = termsOf(topic.join('\n')).filter((term) => !own.has(term));
  return lent.length === 0 ? undefined : topic.join('\n');
}

/** The most the topic may add to a passage, as a share of its own score for the question. */
export const TOPIC_LIFT = 0.5;
/** Candidates read from each search before the topic reorders them, per passage wanted. */
const CANDIDATES_PER_PASSAGE = 4;

const keyOf = (p: Passage) => `${p.sourceUuid}\u0000${p.chunkIndex}`;

/**
 * Reorders passages found for the question alone (`own`) and with its topic (`widened`):
 * each passage scores what the question scores there, plus what the topic adds, capped at
 * TOPIC_LIFT of the former. A passage the question ranks well below another stays below it.
 */
export function blendWithTopic(
  own: readonly Passage[],
  widened: readonly Passage[],
  limit: number,
  ownWasCut: boolean,
): Passage[] {
  const ownScore = new Map(own.map((p) => [keyOf(p), p.score]));
  // A passage past the question's own cut scores at most the last one kept there.
  const floor = ownWasCut ? (own.at(-1)?.score ?? 0) : 0;
  const blended = new Map<string, Passage>();
  for (const passage of widened) {
    const base = ownScore.get(keyOf(passage)) ?? Math.min(floor, passage.score);
    const lift = Math.min(Math.max(0, passage.score - base), TOPIC_LIFT * base);
    if (base > 0) blended.set(keyOf(passage), { ...passage, score: base + lift });
  }
  for (const passage of own) if (!blended.has(keyOf(passage))) blended.set(keyOf(passage), passage);
  return [...blended.values()].sort((a, b) => b.score - a.score).slice(0, limit);
}

/** Whether the passages together hold every word of the question (its own, not the topic's). */
function holdsAll(passages: readonly Passage[], query: string): boolean {
  const held = new Set(
    passages.flatMap((p) => termsOf(`${p.title}\n${p.section ?? ''}\n${p.text}`)),
  );
  return termsOf(query).every((term) => held.has(term));
}

/**
 * Searches for a question in its conversation: alone when it stands alone (the same passages
 * as asked fresh), else alone and with its topic, blended (see blendWithTopic).
 */
export async function searchInConversation(
  index: KnowledgeIndex,
  chatbotUuid: string,
  query: string,
  history: readonly EarlierTurn[],
  options: Omit<SearchOptions, 'context'> = {},
): Promise<Passage[]> {
  const limit = options.limit ?? 5;
  const topic = topicOf(query, history);
  if (topic === undefined) return index.search(chatbotUuid, query, { ...options, limit });
  const wide = { ...options, limit: limit * CANDIDATES_PER_PASSAGE };
  // What the last answer cited is what "it" most likely means: searched first, with the topic.
  const cited = (history.at(-1)?.sources ?? []).filter(
    (uuid) => options.sourceUuids === undefined || options.sourceUuids.includes(uuid),
  );
  const [own, widened, onTopic] = await Promise.all([
    index.search(chatbotUuid, query, wide),
    index.search(chatbotUuid, query, { ...wide, context: topic }),
    cited.length === 0
      ? []
      : index.search(chatbotUuid, query, { ...options, limit, sourceUuids: cited, context: topic }),
  ]);
  const blended = blendWithTopic(own, widened, limit, own.length >= wide.limit);
  if (onTopic.length > 0 && holdsAll(onTopic, query)) return onTopic;
  const seen = new Set(onTopic.map(keyOf));
  return [...onTopic, ...blended.filter((p) => !seen.has(keyOf(p)))].slice(0, limit);
}
