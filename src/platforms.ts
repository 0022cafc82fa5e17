// Which chat platforms `chatbridge start` runs: each one whose tokens are in the environment.
import type { ChatAdapter, Conversation } from './bridge/types.js';
import type { Logger } from './log.js';
import type { ServiceClient } from './service/api.js';
import type { StateStore } from './state/types.js';

export interface PlatformDeps {
  conversation: Conversation;
  client: ServiceClient;
  state: StateStore;
  logger: Logger;
  admins: string[];
  maxUploadBytes: number;
}

/** Names of the platforms configured in env (Slack: SLACK_BOT_TOKEN, Discord: DISCORD_TOKEN). */
export function configuredPlatforms(env: NodeJS.ProcessEnv): string[] {
  const names: string[] = [];
  if (env.SLACK_BOT_TOKEN) names.push('slack');
  if (env.DISCORD_TOKEN) names.push('discord');
  return names;
}

export async function createPlatformAdapters(
  env: NodeJS.ProcessEnv,
  _deps: PlatformDeps,
): Promise<ChatAdapter[]> {
  const adapters: ChatAdapter[] = [];
  for (const name of configuredPlatforms(env)) {
    throw new Error(`the ${name} adapter is not available in this build`);
  }
  return adapters;
}
