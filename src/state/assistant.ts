// Assistant threads (Slack's AI side pane): the channel each thread's person is viewing, and the
// greeting and suggested prompts admins set per place. Plain keyv namespaces, shared by replicas.
import type { Keyv } from 'keyv';
import { checkKey } from './maps.js';
import type {
  AssistantSetting,
  AssistantSettingsMap,
  ViewingContext,
  ViewingContextMap,
} from './types.js';

/** How long a viewing context lasts after it was last set: 30 days. */
export const VIEWING_CONTEXT_TTL_MS = 30 * 24 * 60 * 60_000;

function optionalText(what: string, value: unknown): void {
  if (value !== undefined && (typeof value !== 'string' || value === '')) {
    throw new Error(`${what}: must be a non-empty string when given`);
  }
}

export class KeyvViewingContextMap implements ViewingContextMap {
  constructor(
    private readonly space: Keyv<ViewingContext>,
    private readonly ttlMs = VIEWING_CONTEXT_TTL_MS,
  ) {}

  async get(threadKey: string): Promise<ViewingContext | undefined> {
    checkKey('threadKey', threadKey);
    return (await this.space.get(threadKey)) ?? undefined;
  }

  async set(threadKey: string, context: ViewingContext): Promise<void> {
    checkKey('threadKey', threadKey);
    optionalText('channel', context.channel);
    optionalText('workspace', context.workspace);
    optionalText('enterprise', context.enterprise);
    const { channel, workspace, enterprise } = context;
    await this.space.set(
      threadKey,
      {
        ...(channel === undefined ? {} : { channel }),
        ...(workspace === undefined ? {} : { workspace }),
        ...(enterprise === undefined ? {} : { enterprise }),
      },
      this.ttlMs,
    );
  }
}

export class KeyvAssistantSettings implements AssistantSettingsMap {
  constructor(private readonly space: Keyv<AssistantSetting>) {}

  async get(place: string): Promise<AssistantSetting | undefined> {
    checkKey('place', place);
    return (await this.space.get(place)) ?? undefined;
  }

  async set(place: string, setting: AssistantSetting): Promise<void> {
    checkKey('place', place);
    optionalText('greeting', setting.greeting);
    const { greeting, prompts } = setting;
    if (prompts !== undefined) {
      if (!Array.isArray(prompts)) throw new Error('prompts: must be a list of texts');
      prompts.forEach((prompt, i) => optionalText(`prompts[${i}]`, prompt ?? ''));
    }
    if (greeting === undefined && prompts === undefined) {
      await this.space.delete(place);
      return;
    }
    await this.space.set(place, {
      ...(greeting === undefined ? {} : { greeting }),
      ...(prompts === undefined ? {} : { prompts: [...prompts] }),
    });
  }

  async delete(place: string): Promise<void> {
    checkKey('place', place);
    await this.space.delete(place);
  }
}
