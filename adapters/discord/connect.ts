// Logging in and waiting for READY, telling "Discord refused an intent" (close code 4014) apart
// from other failures, so the adapter can connect again without the Message Content intent.
import { CodedError, ErrorCode } from '../../src/errors.js';
import { Events, type Client } from 'discord.js';
import { DISALLOWED_INTENTS_CLOSE } from './client.js';

export type LoginOutcome = 'ready' | 'disallowed-intents';

/** Logs in; resolves once the client is ready, or with 'disallowed-intents' on a 4014. */
export async function loginUntilReady(client: Client, token: string): Promise<LoginOutcome> {
  let refused = false;
  const onDisconnect = (event: { code: number }) => {
    if (event.code === DISALLOWED_INTENTS_CLOSE) refused = true;
  };
  client.on(Events.ShardDisconnect, onDisconnect);
  let onReady: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => {
    onReady = () => resolve();
    client.once(Events.ClientReady, onReady);
  });
  try {
    await client.login(token);
    await ready;
    return 'ready';
  } catch (error) {
    // discord.js rejects login with "Used disallowed intents" after the 4014 close.
    if (refused) return 'disallowed-intents';
    throw error;
  } finally {
    client.off(Events.ShardDisconnect, onDisconnect);
    if (onReady) client.off(Events.ClientReady, onReady);
  }
}

export class DisallowedIntentsError extends CodedError {
  constructor() {
    super(
      ErrorCode.DiscordIntentsDisallowed,
      'Discord refused the Message Content intent (gateway close 4014). Turn on "Message Content ' +
        'Intent" under Bot → Privileged Gateway Intents in the developer portal, or set ' +
        'DISCORD_MESSAGE_CONTENT=auto (connect without it) or off.',
    );
    this.name = 'DisallowedIntentsError';
  }
}
