// POST /api/v1/chatbot/{uuid}/session/create, POST /api/v1/session/{uuid}/message/stream,
// GET /api/v1/session/{uuid}/messages
import type { FastifyInstance } from 'fastify';
import { validateSessionCreate, validateStream } from '../../service/validate.js';
import { streamAnswer } from '../chat.js';
import { isoTimestamp, newId } from '../ids.js';
import { type SessionRecord, sessionWire } from '../records.js';
import { owned, ownedChatbot, type RouteContext, type UuidParams } from './context.js';
import { schemas } from './schemas.js';

export function sessionRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.post<UuidParams>(
    '/api/v1/chatbot/:uuid/session/create',
    {
      schema: schemas.sessionCreate,
      config: { check: validateSessionCreate },
      // The body is optional here: no body is an empty one for the schema.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
    },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      const input = validateSessionCreate(request.body);
      const at = isoTimestamp(ctx.now());
      const session: SessionRecord = {
        owner: request.owner,
        chatbotUuid: chatbot.uuid,
        uuid: newId(),
        created_at: at,
        modified_at: at,
      };
      if (input.initial_variables !== undefined)
        session.initial_variables = input.initial_variables;
      await ctx.repo.createSession(session);
      return sessionWire(session);
    },
  );

  app.post<UuidParams>(
    '/api/v1/session/:uuid/message/stream',
    { schema: schemas.stream, config: { check: validateStream } },
    async (request, reply) => {
      const session = owned(
        await ctx.repo.getSession(request.params.uuid),
        request.owner,
        'session',
      );
      const { query } = validateStream(request.body);
      const chatbot = owned(
        await ctx.repo.getChatbot(session.chatbotUuid),
        request.owner,
        'session',
      );
      await streamAnswer(ctx.chat, reply, chatbot, session, query);
      return reply;
    },
  );

  app.get<UuidParams>(
    '/api/v1/session/:uuid/messages',
    { schema: schemas.byUuid },
    async (request) => {
      const session = owned(
        await ctx.repo.getSession(request.params.uuid),
        request.owner,
        'session',
      );
      return ctx.repo.listMessages(session.uuid);
    },
  );
}
