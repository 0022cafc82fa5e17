// One streamed answer: rate limit, routing to an agent, retrieval with the conversation's
// earlier turns, writing the pieces as they are produced, then storing the message before the
// connection closes (so a client reading the messages right after the close finds it).
//
// The answer is always produced and stored in full, even when the client goes away or an
// injected fault cuts the connection, like a server that does not notice a broken connection:
// that is why a stream request must never be retried blindly.
import type { FastifyReply } from 'fastify';
import type { Logger } from '../log.js';
import { type AppliedTag, backgroundTags, routeMessage } from './agent-router.js';
import { HttpError } from './http-errors.js';
import { isoTimestamp, newId } from './ids.js';
import type { AnswerDraft, KnowledgePort, Turn } from './knowledge-port.js';
import type { FaultOptions } from './options.js';
import { splitIntoPieces } from './knowledge/index.js';
import { fromArray } from './pieces.js';
import type { SlidingWindowLimiter } from './rate-limit.js';
import type { ChatbotRecord, MessageWire, SessionRecord } from './records.js';
import type { Repository } from './repository.js';

export const NO_AGENT_TEXT = 'This chatbot has no enabled agent that can answer right now.';
const HISTORY_TURNS = 5;

export interface ChatDeps {
  repo: Repository;
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
  // Earlier queries widen retrieval at a lower weight, so a follow-up finds its topic.
  const context = history
    .slice(-2)
    .map((turn) => turn.query)
    .join('\n');
  const route = await routeMessage({
    agents,
    query,
    previousAgentUuid: session.lastAgentUuid,
    search: (sourceUuids) =>
      deps.knowledge.index.search(chatbot.uuid, query, {
        sourceUuids,
        limit: 5,
        context: context === '' ? undefined : context,
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
  const draft = deps.knowledge.answer(
    {
      query,
      passages: route.passages,
      history,
      showCitations: chatbot.meta.show_citations,
      prompt: route.agent.prompt,
      temperature: route.agent.meta.temperature,
    },
    deps.signal,
  );
  const sources = [...new Set(route.passages.map((p) => p.sourceUuid))];
  return { draft, meta: { ...meta, retrieved_source_uuids: sources }, agentUuid: route.agent.uuid };
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
  const decision = deps.limiter.take(chatbot.uuid, chatbot.meta.rate_limit);
  if (!decision.allowed) {
    const seconds = Math.max(1, Math.ceil(decision.retryAfterMs / 1000));
    throw new HttpError(429, 'rate_limited', chatbot.meta.rate_limit_message, {
      headers: { 'retry-after': String(seconds) },
    });
  }
  const earlier = await deps.repo.listMessages(session.uuid);
  const history = earlier
    .slice(-HISTORY_TURNS)
    .map(({ query: q, response }) => ({ query: q, response }));
  const { draft, meta, agentUuid } = await plan(deps, chatbot, session, query, history);

  // The first piece is produced before the status is sent, so a failure there is a clean error.
  const iterator = draft.pieces[Symbol.asyncIterator]();
  let next: IteratorResult<string>;
  try {
    next = await iterator.next();
  } catch (error) {
    deps.logger.warn({ err: error }, 'answer failed before the first piece');
    throw new HttpError(502, 'answer_failed', 'the answer could not be written; try again');
  }
  if (faults.firstByteDelayMs) await sleep(faults.firstByteDelayMs, deps.signal);

  reply.hijack();
  const res = reply.raw;
  let connected = true;
  res.on('close', () => (connected = false));
  res.writeHead(200, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.flushHeaders();
  const cutAt = faults.cutAfterPieces;
  // A cut closes the socket after what was written is flushed: the reader gets the pieces,
  // then a connection that ends without the end of the chunked body.
  const cut = () => {
    connected = false;
    if (res.socket) res.socket.end();
    else res.destroy();
  };
  if (cutAt === 0) cut();

  let text = '';
  let written = 0;
  let errorMessage: string | undefined;
  try {
    while (!next.done) {
      const piece = next.value;
      if (piece !== '') {
        if (connected && written > 0) await deps.pace(written, deps.signal);
        text += piece;
        if (connected && !res.write(piece)) {
          await new Promise<void>((resolve) => {
            res.once('drain', resolve);
            res.once('close', resolve);
          });
        }
        written += 1;
        if (connected && cutAt !== undefined && written >= cutAt) cut();
      }
      next = await iterator.next();
    }
  } catch (error) {
    if (deps.signal.aborted) {
      res.destroy();
      return;
    }
    // In-band, as the hosted service does: the reader sees why the answer stopped.
    errorMessage = error instanceof Error ? error.message : String(error);
    deps.logger.warn({ err: error }, 'answer failed mid-stream');
    const notice = `${text === '' ? '' : '\n\n'}(The answer stopped early: the answer writer failed.)`;
    text += notice;
    if (connected) res.write(notice);
  }

  const at = isoTimestamp(deps.now());
  const message: MessageWire & { error_message?: string } = {
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
    await deps.repo.appendMessage(session.uuid, message);
    await deps.repo.saveSession({
      ...session,
      lastAgentUuid: agentUuid ?? session.lastAgentUuid,
      modified_at: at,
    });
  } catch (error) {
    // The text is out already; without a stored message the reader must see a broken stream.
    deps.logger.error({ err: error }, 'storing the message failed');
    res.destroy();
    return;
  }
  if (connected) res.end();
}
