// Which chat platforms `chatbridge start` runs: each one whose tokens are in the environment
// (Slack: SLACK_BOT_TOKEN and friends, or the OAuth trio SLACK_CLIENT_ID/SECRET/STATE_SECRET for
// many workspaces; Discord: DISCORD_TOKEN), several at once.
// A platform's SDK (Bolt, discord.js: most of a start's module loading) is imported only when
// the platform is configured; its settings are checked without it.
import { slackConfig, type SlackAdapterConfig } from '../adapters/slack/config.js';
import { discordConfig, type DiscordAdapterConfig } from '../adapters/discord/config.js';
import { warnUnsharedShards } from '../adapters/discord/shards.js';
import type { CustomRoute } from '@slack/bolt';
import type { BridgeObserver } from './bridge/observer.js';
import type { ChatAdapter, Conversation } from './bridge/types.js';
import type { Logger } from './log.js';
import type { ServiceClient } from './service/api.js';
import type { ProxySettings } from './service/dispatchers.js';
import { proxyFromEnv } from './service/proxy.js';
import { readSettings } from './settings/index.js';
import type { StateStore } from './state/types.js';

export interface PlatformDeps {
  conversation: Conversation;
  client: ServiceClient;
  state: StateStore;
  logger: Logger;
  /** The chatbot answering where nothing is bound; admin commands fall back to it too. */
  defaultChatbot?: string;
  /** Metrics of platform API calls. */
  observer?: BridgeObserver;
  /** How long stop() waits for answers in progress before disconnecting. */
  drainMs?: number;
  /** Routes served on the platform's own HTTP port, when it has one (Slack HTTP mode). */
  customRoutes?: CustomRoute[];
  /** Whether other processes can share the store (Redis): sharded Discord needs it. */
  sharedStore?: boolean;
}

interface Platform<Config> {
  name: string;
  /** Whether this configuration listens on PORT itself (Slack HTTP mode). */
  servesHttp(config: Config): boolean;
  /**
   * Its settings read from env by the one table (src/settings/) and handed to the adapter
   * parsed; undefined when the platform is not configured; throws naming a broken variable.
   */
  configFromEnv(env: NodeJS.ProcessEnv): Config | undefined;
  create(config: Config, deps: PlatformDeps): Promise<ChatAdapter>;
}

/** The proxy variables reach the platforms' calls as they reach a remote service's. */
function withProxy<Config extends { proxy?: ProxySettings }>(
  config: Config | undefined,
  env: NodeJS.ProcessEnv,
): Config | undefined {
  // Read only for a configured platform: the embedded demo never checks them.
  if (config === undefined) return undefined;
  const proxy = proxyFromEnv(env);
  return proxy ? { ...config, proxy } : config;
}

const slack: Platform<SlackAdapterConfig> = {
  name: 'slack',
  configFromEnv: (env) => withProxy(slackConfig(readSettings('slack', env)), env),
  servesHttp: (config) => !config.appToken,
  create: async (config, deps) => {
    const { createSlackAdapter } = await import('../adapters/slack/index.js');
    return createSlackAdapter(config, {
      ...deps,
      rateBudget: deps.state.rateBudget,
      logger: deps.logger.child({ platform: 'slack' }),
    });
  },
};

const discord: Platform<DiscordAdapterConfig> = {
  name: 'discord',
  configFromEnv: (env) => withProxy(discordConfig(readSettings('discord', env)), env),
  servesHttp: () => false,
  create: async (config, deps) => {
    const { createDiscordAdapter } = await import('../adapters/discord/index.js');
    const logger = deps.logger.child({ platform: 'discord' });
    warnUnsharedShards(config.shards, deps.sharedStore, logger);
    return createDiscordAdapter(config, { ...deps, rateBudget: deps.state.rateBudget, logger });
  },
};

const platforms = [slack, discord] as Platform<unknown>[];

export interface ConfiguredPlatform {
  name: string;
  /** It listens on PORT itself: the ops routes go onto its server (deps.customRoutes). */
  servesHttp: boolean;
  start(deps: PlatformDeps): Promise<ChatAdapter>;
}

/**
 * The platforms with settings in env, their settings checked now (before anything starts), so
 * a half-configured platform stops `chatbridge start` with the variable's name.
 */
export function configuredPlatforms(env: NodeJS.ProcessEnv): ConfiguredPlatform[] {
  return platforms.flatMap((platform) => {
    const config = platform.configFromEnv(env);
    if (config === undefined) return [];
    return [
      {
        name: platform.name,
        servesHttp: platform.servesHttp(config),
        start: (deps: PlatformDeps) => platform.create(config, deps),
      },
    ];
  });
}
