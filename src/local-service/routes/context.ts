// What every route needs, and the ownership rule: a resource of another key is "not found".
import type { ChatDeps } from '../chat.js';
import { HttpError } from '../http-errors.js';
import type { Ingestor } from '../ingest.js';
import type { FastifyRequest } from 'fastify';
import type { ChatbotRecord, Owned } from '../records.js';
import type { Repository } from '../repository.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated user: a hash of the API key. */
    owner: string;
  }
}

export interface RouteContext {
  repo: Repository;
  ingestor: Ingestor;
  chat: ChatDeps;
  now: () => number;
  maxUploadBytes: number;
  /** Longest silence while an upload's form is still arriving. */
  uploadIdleTimeoutMs: number;
}

export type UuidParams = { Params: { uuid: string } };

/** The record when it exists and belongs to the owner; 404 otherwise (never 403: no leak). */
export function owned<T extends Pick<Owned, 'owner'>>(
  record: T | undefined,
  owner: string,
  what: string,
): T {
  if (!record || record.owner !== owner) throw HttpError.notFound(what);
  return record;
}

/** The chatbot named by the path's uuid, when it belongs to the caller; 404 otherwise. */
export async function ownedChatbot(
  ctx: RouteContext,
  request: FastifyRequest<UuidParams>,
): Promise<ChatbotRecord> {
  return owned(await ctx.repo.getChatbot(request.params.uuid), request.owner, 'chatbot');
}

/** Every id must be a data source of the chatbot: 400 naming the position otherwise. */
export async function checkSourcesOf(
  repo: Repository,
  chatbotUuid: string,
  ids: string[] | undefined,
  field = 'data_source_uuids',
): Promise<void> {
  if (ids === undefined) return;
  const known = new Set((await repo.listSources(chatbotUuid)).map((s) => s.uuid));
  ids.forEach((id, i) => {
    if (!known.has(id))
      throw HttpError.badRequest(`${field}[${i}]`, 'must be a data source of this chatbot');
  });
}
