// POST /api/v1/chatbot/{uuid}/data-source/qa | url | upload, POST /api/v1/data-source/{uuid}/update
import type { FastifyInstance } from 'fastify';
import {
  validateQaSource,
  validateSourceRename,
  validateUrlSource,
} from '../../service/validate.js';
import { HttpError } from '../http-errors.js';
import { sourceWire } from '../records.js';
import { readUploadForm } from '../upload-form.js';
import { owned, ownedChatbot, type RouteContext, type UuidParams } from './context.js';
import { schemas } from './schemas.js';

export function sourceRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.post<UuidParams>(
    '/api/v1/chatbot/:uuid/data-source/qa',
    { schema: schemas.qaSource, config: { check: validateQaSource } },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      const input = validateQaSource(request.body);
      const source = await ctx.ingestor.addQa(
        request.owner,
        chatbot.uuid,
        input.question,
        input.answer,
      );
      return sourceWire(source);
    },
  );

  app.post<UuidParams>(
    '/api/v1/chatbot/:uuid/data-source/url',
    { schema: schemas.urlSource, config: { check: validateUrlSource } },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      const input = validateUrlSource(request.body);
      const source = await ctx.ingestor.addUrl(request.owner, chatbot.uuid, input.url.trim());
      return sourceWire(source);
    },
  );

  app.post<UuidParams>(
    '/api/v1/chatbot/:uuid/data-source/upload',
    { schema: schemas.byUuid, config: { multipart: true } },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      const upload = await readUploadForm(request, {
        maxFileBytes: ctx.maxUploadBytes,
        idleTimeoutMs: ctx.uploadIdleTimeoutMs,
      });
      const source = await ctx.ingestor.addUpload(request.owner, chatbot.uuid, upload);
      return sourceWire(source);
    },
  );

  app.post<UuidParams>(
    '/api/v1/data-source/:uuid/update',
    { schema: schemas.sourceRename, config: { check: validateSourceRename } },
    async (request) => {
      const source = owned(
        await ctx.repo.getSource(request.params.uuid),
        request.owner,
        'data source',
      );
      const { title } = validateSourceRename(request.body);
      const renamed = await ctx.ingestor.rename(source.uuid, title);
      if (!renamed) throw HttpError.notFound('data source');
      return sourceWire(renamed);
    },
  );
}
