// help [noun]: for everyone. Lists the commands (with their arguments for one noun).
import { AdminInputError, AdminRefusal } from '../errors.js';
import { availableOn, platformNames } from '../args.js';
import type { AdminCommand, AdminNoun } from '../types.js';
import { commandHelp, overview } from '../usage.js';
import { positional } from './shared.js';

export const HELP_NOUNS: readonly AdminNoun[] = [
  'chatbot',
  'agent',
  'source',
  'tag',
  'session',
  'thread-context',
  'assistant',
  'feedback',
];

export function helpCommand(table: () => readonly AdminCommand[]): AdminCommand {
  const help: AdminCommand = {
    noun: 'help',
    verb: '',
    summary: 'Show the commands, or the details of one group (help chatbot)',
    permission: 'anyone',
    args: [
      positional('topic', 'enum', 'Command group to explain', {
        choices: HELP_NOUNS,
        required: false,
      }),
    ],
    async run(ctx, args) {
      const topic = args.topic as AdminNoun | undefined;
      const commands = table().filter(
        (c) => (topic === undefined || c.noun === topic) && availableOn(c, ctx.platform),
      );
      if (commands.length === 0) {
        const elsewhere = table().find((c) => c.noun === topic)?.platforms;
        if (elsewhere) {
          throw new AdminRefusal(
            `The ${topic} commands are for ${platformNames(elsewhere)} only: run them there.`,
          );
        }
        throw new AdminInputError('<topic>', `must be one of ${HELP_NOUNS.join(', ')}`, help);
      }
      const body =
        topic === undefined ? overview(commands) : commands.map(commandHelp).join('\n\n');
      const notes = [
        'Chatbot, agent, source and tag are named by name (any case) or uuid; put text with spaces in "quotes".',
        'Commands act on the chatbot bound to this channel, else the workspace default, unless --chatbot is given.',
      ];
      if (!ctx.isAdmin)
        notes.push('Only admins may run the commands other than help and session reset.');
      const more =
        topic === undefined
          ? ['`help <group>` explains each argument (help chatbot, help agent, …).']
          : [];
      return [
        { kind: 'text', text: body },
        { kind: 'notice', tone: 'info', text: [...notes, ...more].join('\n') },
      ];
    },
  };
  return help;
}
