// The assistant pane (Slack's AI side pane): what a new thread there greets the person with,
// which prompts it suggests, and the title a thread takes from its first question. Settings
// follow channel bindings: the channel being viewed, else the workspace, else the defaults.
import type { AssistantSetting, StateStore } from '../state/types.js';

export const DEFAULT_ASSISTANT_GREETING =
  'Hi! I answer questions from the knowledge base. Ask me anything, or pick a suggestion below.';

export const DEFAULT_ASSISTANT_PROMPTS: readonly string[] = Object.freeze([
  'What can you help me with?',
  'Summarize what the knowledge base covers.',
  'Where do I find how-to guides?',
]);

/**
 * Slack shows at most four suggested prompts; a prompt's title is its text, and long ones are
 * cut in the pane, so prompts stay short. The greeting is a plain message.
 */
export const ASSISTANT_LIMITS = Object.freeze({
  prompts: 4,
  promptChars: 150,
  greetingChars: 2000,
  /** The thread's title (the first question, shortened). */
  titleChars: 60,
});

/** The title shown over the list of suggested prompts. */
export const SUGGESTED_PROMPTS_TITLE = 'Try asking';

/** Where an effective setting came from (admin output). */
export type SettingSource = 'channel' | 'workspace' | 'default';

export interface EffectiveAssistantSettings {
  greeting: string;
  prompts: string[];
  greetingFrom: SettingSource;
  promptsFrom: SettingSource;
}

/** The place keys settings live under, as for chatbot bindings. */
function assistantPlaces(platform: string, workspace: string, channel?: string) {
  return {
    workspace: `${platform}:${workspace}`,
    channel: channel === undefined ? undefined : `${platform}:${workspace}:${channel}`,
  };
}

/** Greeting and prompts field by field: the channel's, else the workspace's, else defaults. */
export async function effectiveAssistantSettings(
  state: Pick<StateStore, 'assistantSettings'>,
  platform: string,
  workspace: string,
  channel?: string,
): Promise<EffectiveAssistantSettings> {
  const places = assistantPlaces(platform, workspace, channel);
  const [inChannel, inWorkspace] = await Promise.all([
    places.channel === undefined
      ? Promise.resolve(undefined)
      : state.assistantSettings.get(places.channel),
    state.assistantSettings.get(places.workspace),
  ]);
  const pick = <K extends keyof AssistantSetting>(
    key: K,
    fallback: NonNullable<AssistantSetting[K]>,
  ) => {
    if (inChannel?.[key] !== undefined) return { value: inChannel[key]!, from: 'channel' as const };
    if (inWorkspace?.[key] !== undefined) {
      return { value: inWorkspace[key]!, from: 'workspace' as const };
    }
    return { value: fallback, from: 'default' as const };
  };
  const greeting = pick('greeting', DEFAULT_ASSISTANT_GREETING);
  const prompts = pick('prompts', [...DEFAULT_ASSISTANT_PROMPTS]);
  return {
    greeting: greeting.value,
    prompts: [...prompts.value],
    greetingFrom: greeting.from,
    promptsFrom: prompts.from,
  };
}

/**
 * A thread title from its first question: whitespace folded, cut at a word boundary to at most
 * `max` characters (counted as code points) with "…" when cut. "" for a question with no text.
 */
export function threadTitle(question: string, max: number = ASSISTANT_LIMITS.titleChars): string {
  const text = question.replace(/\s+/gu, ' ').trim();
  const chars = [...text];
  if (chars.length <= max) return text;
  const head = chars.slice(0, max - 1).join('');
  // Cut at the last space when it keeps most of the text; a long word is cut as it is.
  const space = head.lastIndexOf(' ');
  const cut = space >= head.length / 2 ? head.slice(0, space) : head;
  return `${cut.replace(/[\s.,;:!?-]+$/u, '')}…`;
}
