// GET /api/v1/chatbot/{uuid}/source-tags, POST /api/v1/chatbot/{uuid}/source-tag/create,
// POST /api/v1/source-tag/{uuid}/update
import type { FastifyInstance } from 'fastify';
import { validateSourceTagCreate, validateSourceTagUpdate } from '../../service/validate.js';
import { HttpError } from '../http-errors.js';
import { isoTimestamp, newId } from '../ids.js';
import { type SourceTagRecord, tagWire } from '../records.js';
import {
  checkSourcesOf,
  owned,
  ownedChatbot,
  type RouteContext,
  type UuidParams,
} from './context.js';
import { schemas } from './schemas.js';

export function tagRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get<UuidParams>(
    '/api/v1/chatbot/:uuid/source-tags',
    { schema: schemas.byUuid },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      return (await ctx.repo.listTags(chatbot.uuid)).map(tagWire);
    },
  );

  app.post<UuidParams>(
    '/api/v1/chatbot/:uuid/source-tag/create',
    { schema: schemas.tagCreate, config: { check: validateSourceTagCreate } },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      const input = validateSourceTagCreate(request.body);
      await checkSourcesOf(ctx.repo, chatbot.uuid, input.data_source_uuids);
      const at = isoTimestamp(ctx.now());
      const tag: SourceTagRecord = {
        owner: request.owner,
        chatbotUuid: chatbot.uuid,
        uuid: newId(),
        name: input.name,
        color: input.color,
        data_source_uuids: [...new Set(input.data_source_uuids ?? [])],
        created_at: at,
        modified_at: at,
      };
      await ctx.repo.createTag(tag);
      return tagWire(tag);
    },
  );

  app.post<UuidParams>(
    '/api/v1/source-tag/:uuid/update',
    { schema: schemas.tagUpdate, config: { check: validateSourceTagUpdate } },
    async (request) => {
      const tag = owned(await ctx.repo.getTag(request.params.uuid), request.owner, 'source tag');
      const input = validateSourceTagUpdate(request.body);
      await checkSourcesOf(ctx.repo, tag.chatbotUuid, input.data_source_uuids);
      const updated = await ctx.repo.changeTag(tag.uuid, (current) => ({
        ...current,
        name: input.name ?? current.name,
        color: input.color ?? current.color,
        data_source_uuids:
          input.data_source_uuids === undefined
            ? current.data_source_uuids
            : [...new Set(input.data_source_uuids)],
        modified_at: isoTimestamp(ctx.now()),
      }));
      if (!updated) throw HttpError.notFound('source tag');
      return tagWire(updated);
    },
  );
}
