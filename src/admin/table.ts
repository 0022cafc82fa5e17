// The admin command table: the one list every surface reads.
import { commandName } from './args.js';
import { agentCommands } from './commands/agent.js';
import { assistantCommands } from './commands/assistant.js';
import { chatbotCommands } from './commands/chatbot.js';
import { feedbackCommands } from './commands/feedback.js';
import { helpCommand } from './commands/help.js';
import { sessionCommands } from './commands/session.js';
import { sourceCommands } from './commands/source.js';
import { tagCommands } from './commands/tag.js';
import { threadContextCommands } from './commands/thread-context.js';
import type { AdminCommand } from './types.js';

export const adminCommands: readonly AdminCommand[] = Object.freeze([
  ...chatbotCommands,
  ...agentCommands,
  ...sourceCommands,
  ...tagCommands,
  ...sessionCommands,
  ...threadContextCommands,
  ...assistantCommands,
  ...feedbackCommands,
  helpCommand(() => adminCommands),
]);

export function findCommand(noun: string, verb: string): AdminCommand | undefined {
  const n = noun.toLowerCase();
  const v = verb.toLowerCase();
  return adminCommands.find((c) => c.noun === n && c.verb === v);
}

/** The distinct nouns, in table order. */
export function adminNouns(): string[] {
  return [...new Set(adminCommands.map((c) => c.noun))];
}

export function verbsOf(noun: string): string[] {
  return adminCommands.filter((c) => c.noun === noun).map((c) => commandName(c));
}
