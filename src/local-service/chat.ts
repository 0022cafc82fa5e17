// One streamed answer: rate limit, routing to an agent, retrieval with the conversation's
// earlier turns, writing the pieces as they are produced, then storing the message before the
// connection closes (so a client reading the messages right after the close finds it).
//
// The answer is always produced and stored in full, even when the client goes away (at any
// point, from the start of the handler) or an injected fault cuts the connection: the stored
// message is what was answered, so a stream request must never be retried blindly. Nothing is
// written to, or waited on, a response whose client has gone.
import type { FastifyReply } from 'fastify';
import type { Logger } from '../log.js';
import { type AppliedTag, backgroundTags, routeMessage } from './agent-router.js';
import { HttpError } from './http-errors.js';
import { isoTimestamp, newId } from './ids.js';
import type { AnswerDraft, KnowledgePort, Turn } from './knowledge-port.js';
import type { FaultOptions } from './options.js';
import { splitIntoPieces } from './knowledge/index.js';
import { trustedPassage } from './knowledge/compose.js';
import { asksTheSame } from './knowledge/qa-answer.js';
import type { KnowledgeIndex, Passage } from './knowledge/types.js';
import { fromArray } from './pieces.js';
import { ResponseSink } from './response-sink.js';
import type { SlidingWindowLimiter } from './rate-limit.js';
import type { ChatbotRecord, SessionRecord } from './records.js';
import type { StoredMessage } from './rows.js';
import type { Repository } from './repository.js';

/** Passages a question is answered from: a few more than shown, so the writer can choose. */
const PASSAGES_SEARCHED = 8;

export const NO_AGENT_TEXT = 'This chatbot has no enabled agent that can answer right now.';
const HISTORY_TURNS = 5;
/** Best passages looked at for a Q&A pair asking the same question. */
const QA_PASSAGES_READ = 3;

export interface ChatDeps {
  repo: Repository;
  /** Search over the chunks stored beside the records. */
  index: KnowledgeIndex;
  knowledge: KnowledgePort;
  limiter: SlidingWindowLimiter;
  now: () => number;
  pace: (pieceIndex: number, signal: AbortSignal) => Promise<void>;
  faults: () => FaultOptions;
  /** Aborted when the service closes. */
  signal: AbortSignal;
  logger: Logger;
}

interface Plan {
  draft: AnswerDraft;
  meta: Record<string, unknown>;
  agentUuid?: string;
}

async function plan(
  deps: ChatDeps,
  chatbot: ChatbotRecord,
  session: SessionRecord,
  query: string,
  history: Turn[],
): Promise<Plan> {
  const agents = await deps.repo.listAgents(chatbot.uuid);
  const tags: AppliedTag[] = backgroundTags(agents, query);
  const route = await routeMessage({
    agents,
    query,
    previousAgentUuid: session.lastAgentUuid,
    // The previous question lends its words at a lower weight (see knowledge/search-index.ts).
    search: (sourceUuids) =>
      deps.index.search(chatbot.uuid, query, {
        sourceUuids,
        limit: PASSAGES_SEARCHED,
        ...(history.length > 0 && { previous: history.at(-1)! }),
      }),
  });
  if (route.kind === 'none') {
    return { draft: fixedDraft(NO_AGENT_TEXT), meta: { agent_uuid: null, tags } };
  }
  const meta = {
    agent_uuid: route.agent.uuid,
    agent_name: route.agent.name,
    agent_type: route.agent.type,
    tags,
  };
  if (route.kind === 'fixed')
    return { draft: fixedDraft(route.text), meta, agentUuid: route.agent.uuid };
  const qaPair = await pairAsked(deps.repo, route.passages, query);
  const draft = deps.knowledge.answer(
    {
      query,
      passages: route.passages,
      history,
      showCitations: chatbot.meta.show_citations,
      prompt: route.agent.prompt,
      temperature: route.agent.meta.temperature,
      ...(qaPair === undefined ? {} : { qaPair }),
    },
    deps.signal,
  );
  const sources = [...new Set(route.passages.map((p) => p.sourceUuid))];
  return { draft, meta: { ...meta, retrieved_source_uuids: sources }, agentUuid: route.agent.uuid };
}

/**
 * The Q&A pair to answer with, whole: among the best passages, one whose question is the one
 * asked; or the passage retrieval trusts most, when it is a pair (a paraphrase of its question).
 */
async function pairAsked(repo: Repository, passages: Passage[], query: string) {
  const trusted = trustedPassage(passages);
  for (const passage of passages.slice(0, QA_PASSAGES_READ)) {
    if (passage.type !== 'qa') continue;
    const source = await repo.getSource(passage.sourceUuid);
    const pair = source
      ? (JSON.parse(source.meta_json) as { question?: unknown; answer?: unknown })
      : {};
    if (typeof pair.question !== 'string' || typeof pair.answer !== 'string') continue;
    if (passage === trusted || asksTheSame(query, pair.question))
      return { answer: pair.answer, passage };
  }
  return undefined;
}

/** The data sources a stored answer cited (its cite_data_json), in marker order. */
function citedSources(citeDataJson: string): string[] {
  try {
    const entries = Object.values(JSON.parse(citeDataJson) as Record<string, unknown>);
    const uuids = entries.map(
      (entry) => (entry as { data_source_uuid?: unknown })?.data_source_uuid,
    );
    return [...new Set(uuids.filter((uuid): uuid is string => typeof uuid === 'string'))];
  } catch {
    return []; // written by this service; a damaged row costs the follow-up its hint only
  }
}

function fixedDraft(text: string): AnswerDraft {
  return { pieces: fromArray(splitIntoPieces(text)), citations: () => ({}) };
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', abort, { once: true });
  });

export function delayPacer(ms: number) {
  return (_index: number, signal: AbortSignal): Promise<void> =>
    ms > 0 ? sleep(ms, signal) : Promise.resolve();
}

/** Sleeps unless the client leaves (then it returns at once); the service closing rejects. */
async function waitUnlessGone(
  wait: (signal: AbortSignal) => Promise<void>,
  sink: ResponseSink,
  closing: AbortSignal,
): Promise<void> {
  if (!sink.open) return;
  try {
    await wait(AbortSignal.any([closing, sink.signal]));
  } catch (error) {
    if (closing.aborted || !sink.signal.aborted) throw error;
  }
}

export async function streamAnswer(
  deps: ChatDeps,
  reply: FastifyReply,
  chatbot: ChatbotRecord,
  session: SessionRecord,
  query: string,
): Promise<void> {
  const faults = deps.faults();
  if (faults.failStatus !== undefined) {
    throw new HttpError(
      faults.failStatus,
      'injected_fault',
      `injected fault: status ${faults.failStatus}`,
    );
  }
  const limit = chatbot.meta.rate_limit;
  const decision = await deps.limiter.take(chatbot.uuid, limit);
  if (!decision.allowed) {
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw new HttpError(429, 'rate_limited', chatbot.meta.rate_limit_message, {
      headers: { 'retry-after': String(seconds) },
    });
  }
  // Watched from here on, so a client that leaves while the answer is planned is noticed.
  const sink = new ResponseSink(reply.raw);
  try {
    let started: Started;
    try {
      started = await startAnswer(deps, chatbot, session, query);
    } catch (error) {
      // No answer was written: the message does not count against the limit.
      deps.limiter.release(chatbot.uuid, decision.slot);
      throw error;
    }
    if (faults.firstByteDelayMs) {
      deps.logger.debug({ session: session.uuid }, 'injected first-byte delay');
      const ms = faults.firstByteDelayMs;
      await waitUnlessGone((signal) => sleep(ms, signal), sink, deps.signal);
    }
    reply.hijack();
    await writeAndStore(deps, sink, faults, chatbot, session, query, started);
  } finally {
    sink.dispose();
  }
}

interface Started extends Plan {
  iterator: AsyncIterator<string>;
  first: IteratorResult<string>;
}

async function startAnswer(
  deps: ChatDeps,
  chatbot: ChatbotRecord,
  session: SessionRecord,
  query: string,
): Promise<Started> {
  const earlier = await deps.repo.lastMessages(session.uuid, HISTORY_TURNS);
  const history = earlier.map(({ query: q, response, cite_data_json }) => ({
    query: q,
    response,
    sources: citedSources(cite_data_json),
  }));
  const planned = await plan(deps, chatbot, session, query, history);
  // The first piece is produced before the status is sent, so a failure there is a clean error.
  const iterator = planned.draft.pieces[Symbol.asyncIterator]();
  try {
    return { ...planned, iterator, first: await iterator.next() };
  } catch (error) {
    deps.logger.warn({ err: error }, 'answer failed before the first piece');
    throw new HttpError(502, 'answer_failed', 'the answer could not be written; try again');
  }
}

/**
 * Writes the pieces while the client listens, then stores the message. When the client has
 * left (or a fault cut the connection) the answer is still produced and stored in full: the
 * stored message is what the service answered, whether or not it was all read.
 */
async function writeAndStore(
  deps: ChatDeps,
  sink: ResponseSink,
  faults: FaultOptions,
  chatbot: ChatbotRecord,
  session: SessionRecord,
  query: string,
  { draft, meta, agentUuid, iterator, first }: Started,
): Promise<void> {
  sink.start({
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  const cutAt = faults.cutAfterPieces;
  if (cutAt === 0) sink.cut();

  let next = first;
  let text = '';
  let written = 0;
  let errorMessage: string | undefined;
  try {
    while (!next.done) {
      const piece = next.value;
      if (piece !== '') {
        if (written > 0) {
          const index = written;
          await waitUnlessGone((signal) => deps.pace(index, signal), sink, deps.signal);
        }
        text += piece;
        await sink.write(piece);
        written += 1;
        if (sink.open && cutAt !== undefined && written >= cutAt) sink.cut();
      }
      next = await iterator.next();
    }
  } catch (error) {
    if (deps.signal.aborted) {
      sink.destroy();
      return;
    }
    // In-band, as the hosted service does: the reader sees why the answer stopped.
    errorMessage = error instanceof Error ? error.message : String(error);
    deps.logger.warn({ err: error }, 'answer failed mid-stream');
    const notice = `${text === '' ? '' : '\n\n'}(The answer stopped early: the answer writer failed.)`;
    text += notice;
    await sink.write(notice);
  }

  const at = isoTimestamp(deps.now());
  const message: StoredMessage = {
    uuid: newId(),
    query,
    response: text,
    cite_data_json: chatbot.meta.show_citations ? JSON.stringify(draft.citations(text)) : '{}',
    finish_reason: errorMessage === undefined ? (draft.finishReason?.() ?? 'stop') : 'error',
    meta_json: JSON.stringify(meta),
    created_at: at,
    modified_at: at,
  };
  if (errorMessage !== undefined) message.error_message = errorMessage;
  try {
    await deps.repo.appendMessage(session.uuid, message, {
      ...(agentUuid === undefined ? {} : { lastAgentUuid: agentUuid }),
      modifiedAt: at,
    });
  } catch (error) {
    // The text is out already; without a stored message the reader must see a broken stream.
    deps.logger.error({ err: error }, 'storing the message failed');
    sink.destroy();
    return;
  }
  deps.logger.debug(
    { session: session.uuid, message: message.uuid, clientGone: !sink.open },
    'answer stored',
  );
  sink.end();
}
