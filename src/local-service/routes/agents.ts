// GET /api/v1/chatbot/{uuid}/agents, POST /api/v1/chatbot/{uuid}/agent/create,
// POST /api/v1/agent/{uuid}/update
import type { FastifyInstance } from 'fastify';
import { validateAgentCreate, validateAgentUpdate } from '../../service/validate.js';
import { applyAgentUpdate, buildAgent } from '../agents.js';
import { HttpError } from '../http-errors.js';
import { agentWire } from '../records.js';
import {
  checkSourcesOf,
  owned,
  ownedChatbot,
  type RouteContext,
  type UuidParams,
} from './context.js';
import { schemas } from './schemas.js';

export function agentRoutes(app: FastifyInstance, ctx: RouteContext): void {
  app.get<UuidParams>(
    '/api/v1/chatbot/:uuid/agents',
    { schema: schemas.byUuid },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      const agents = await ctx.repo.listAgents(chatbot.uuid);
      return agents.map((agent) => agentWire(agent, false));
    },
  );

  app.post<UuidParams>(
    '/api/v1/chatbot/:uuid/agent/create',
    { schema: schemas.agentCreate, config: { check: validateAgentCreate } },
    async (request) => {
      const chatbot = await ownedChatbot(ctx, request);
      const input = validateAgentCreate(request.body);
      const agent = buildAgent(request.owner, chatbot.uuid, input, ctx.now());
      await ctx.repo.createAgent(agent);
      return agentWire(agent, true);
    },
  );

  app.post<UuidParams>(
    '/api/v1/agent/:uuid/update',
    { schema: schemas.agentUpdate, config: { check: validateAgentUpdate } },
    async (request) => {
      const agent = owned(await ctx.repo.getAgent(request.params.uuid), request.owner, 'agent');
      const input = validateAgentUpdate(request.body);
      await checkSourcesOf(ctx.repo, agent.chatbotUuid, input.data_source_uuids);
      const updated = await ctx.repo.changeAgent(agent.uuid, (current) =>
        applyAgentUpdate(current, input, ctx.now()),
      );
      if (!updated) throw HttpError.notFound('agent');
      return agentWire(updated, true);
    },
  );
}
