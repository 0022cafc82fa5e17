// POST /api/v1/chatbot/create, GET /api/v1/chatbots
import type { FastifyInstance } from 'fastify';
import { validateChatbotCreate } from '../../service/validate.js';
import { buildDefaultAgent } from '../agents.js';
import { isoTimestamp, newId } from '../ids.js';
import { DEFAULTS } from '../options.js';
import { type ChatbotRecord, chatbotWire } from '../records.js';
import type { RouteContext } from './context.js';
import { schemas } from './schemas.js';

export function chatbotRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.post(
    '/api/v1/chatbot/create',
    { schema: schemas.chatbotCreate, config: { check: validateChatbotCreate } },
    async (request) => {
      const input = validateChatbotCreate(request.body);
      const nowMs = ctx.now();
      const at = isoTimestamp(nowMs);
      const chatbot: ChatbotRecord = {
        owner: request.owner,
        uuid: newId(),
        name: input.name,
        created_at: at,
        modified_at: at,
        meta: {
          visibility: input.visibility ?? 'private',
          rate_limit: input.rate_limit ?? [...DEFAULTS.rateLimit],
          rate_limit_message: input.rate_limit_message ?? DEFAULTS.rateLimitMessage,
          show_citations: input.show_citations ?? false,
        },
      };
      // With its General Q&A agent, in one transaction: a listed chatbot always has it.
      await ctx.repo.createChatbot(chatbot, [
        buildDefaultAgent(request.owner, chatbot.uuid, nowMs),
      ]);
      return chatbotWire(chatbot);
    },
  );

  app.get('/api/v1/chatbots', async (request) => {
    const chatbots = await ctx.repo.listChatbots(request.owner);
    return chatbots.map(chatbotWire);
  });
}
