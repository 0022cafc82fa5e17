// docs/admin.md, written from the command table so the reference never drifts from the code.
// `npm run docs` rewrites it; test/admin/reference.test.ts fails when it is stale.
import { commandName, platformNames } from './args.js';
import { adminCommands } from './table.js';
import { usage } from './usage.js';

const HEADER = `# Admin commands

<!-- Generated from src/admin/table.ts by \`npm run docs\`; edit the table, not this file. -->

The same commands run everywhere: \`/chatbridge <command>\` in Slack and Discord, \`/<command>\`
in the terminal chat, and \`chatbridge admin <command>\` from the shell. Commands marked
*anyone* are open to every user; the others need a workspace admin or owner (Slack), the
Manage Server permission (Discord), or a user id listed in \`CHATBRIDGE_ADMINS\`.

Chatbots, agents, sources and tags can be named by their name (case-insensitive) or uuid.
Commands act on the chatbot bound to the channel, else the workspace's, unless \`--chatbot\`
names one. Quote values with spaces: \`chatbot create "Support bot"\`.
`;

export function adminReferenceMarkdown(): string {
  const sections = adminCommands.map((command) => {
    const who = command.permission === 'anyone' ? ' *(anyone)*' : '';
    const where = command.platforms ? ` *(${platformNames(command.platforms, ', ')} only)*` : '';
    const rows = command.args.map((spec) => {
      const label = spec.positional ? `\`<${spec.name}>\`` : `\`--${spec.name}\``;
      const choices = spec.choices ? ` (one of: ${spec.choices.join(', ')})` : '';
      return `| ${label} | ${spec.kind}${spec.multiple ? ' (comma-separated)' : ''} | ${
        spec.required ? 'yes' : 'no'
      } | ${spec.help.replaceAll('|', '\\|')}${choices} |`;
    });
    const table =
      rows.length === 0
        ? ''
        : `\n| Argument | Kind | Required | Meaning |\n|---|---|---|---|\n${rows.join('\n')}\n`;
    return `## ${commandName(command)}${who}${where}\n\n${command.summary}\n\n\`\`\`\n${usage(command)}\n\`\`\`\n${table}`;
  });
  return `${HEADER}\n${sections.join('\n')}`;
}
