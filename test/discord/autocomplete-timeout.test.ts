// Discord drops an autocomplete not answered within 3 s: while the service is slow, the bridge
// answers with no choices in time: 2.5 s, the production value, on fake time.
import type { AutocompleteInteraction, Interaction } from 'discord.js';
import { ApplicationCommandOptionType, PermissionFlagsBits } from 'discord.js';
import { describe, expect, it } from 'vitest';
import {
  AUTOCOMPLETE_TIMEOUT_MS,
  createInteractionHandler,
} from '../../adapters/discord/interactions.js';
import { silentLogger } from '../../src/log.js';
import type { ServiceClient } from '../../src/service/api.js';
import { openState } from '../../src/state/index.js';
import { useFakeTime } from '../fake-time.js';

let seq = 0;
/** The parts of an autocomplete interaction for `/chatbridge chatbot use` the handler reads. */
function autocompleting(respond: (choices: unknown[]) => void): Interaction {
  const interaction = {
    id: `ac-${++seq}`,
    commandName: 'chatbridge',
    guildId: 'G1',
    channelId: 'C1',
    channel: { isThread: () => false },
    user: { id: 'U1' },
    memberPermissions: { has: (flag: bigint) => flag === PermissionFlagsBits.ManageGuild },
    isAutocomplete: () => true,
    isChatInputCommand: () => false,
    isButton: () => false,
    isModalSubmit: () => false,
    options: {
      getSubcommandGroup: () => 'chatbot',
      getSubcommand: () => 'use',
      getFocused: () => ({
        name: 'chatbot',
        value: 'hel',
        type: ApplicationCommandOptionType.String,
      }),
      getString: () => null,
    },
    respond: async (choices: unknown[]) => respond(choices),
  };
  return interaction as unknown as AutocompleteInteraction;
}

async function complete(client: Partial<ServiceClient>) {
  const state = await openState('memory://');
  const handler = createInteractionHandler({
    client: client as ServiceClient,
    state,
    maxUploadBytes: 1024,
    logger: silentLogger as never,
  });
  let answered: unknown[] | undefined;
  await handler(autocompleting((choices) => (answered = choices)));
  await state.close();
  return answered;
}

describe('Discord autocomplete in time', () => {
  it('answers within 2.5 s by default (Discord allows 3)', () => {
    expect(AUTOCOMPLETE_TIMEOUT_MS).toBe(2500);
  });

  it('answers no choices once the timeout passes while the service has not answered', async () => {
    const never = new Promise<never>(() => {});
    const time = useFakeTime(250);
    try {
      const answered = await time.settle(complete({ listChatbots: () => never }));
      expect(answered).toEqual([]);
      // The schedule: at the 2.5 s, never before, and within Discord's 3 s.
      expect(time.elapsed()).toBeGreaterThanOrEqual(AUTOCOMPLETE_TIMEOUT_MS);
      expect(time.elapsed()).toBeLessThan(3000);
    } finally {
      time.restore();
    }
  });

  it('answers the choices when the service is in time', async () => {
    const answered = await complete({
      listChatbots: async () =>
        [{ uuid: 'a'.repeat(32), name: 'Helper' }] as Awaited<
          ReturnType<ServiceClient['listChatbots']>
        >,
    });
    expect(answered).toEqual([{ name: 'Helper', value: 'a'.repeat(32) }]);
  });
});
