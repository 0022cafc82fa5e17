// docs/configuration.md, written from the settings table (settings/) by `npm run docs`; a test
// holds the committed file to what this writes.
import { ruleOf, SETTINGS, type Setting, type SettingUse } from './settings/index.js';

const SECTIONS: Array<[SettingUse, string, string]> = [
  [
    'start',
    '`chatbridge start`',
    'The bridge, and the embedded local service it runs when no remote service is set.',
  ],
  [
    'service',
    '`chatbridge service`',
    'The local service on its own. Each variable has a flag too; flags win.',
  ],
  [
    'slack',
    'Slack',
    'Slack runs when a token or secret of its own is set; see [slack.md](slack.md).',
  ],
  ['discord', 'Discord', 'Discord runs when `DISCORD_TOKEN` is set; see [discord.md](discord.md).'],
];

const cell = (text: string) => text.replace(/\|/g, '\\|');

function typeOf(s: Setting): string {
  switch (s.type) {
    case 'whole':
      return `whole number, ${s.min ?? 0} to ${s.max}`;
    case 'choice':
      return (s.choices ?? []).map((c) => `\`${c}\``).join(', ');
    case 'switch':
      return 'switch (`1`, `true`, `yes`, `on`)';
    case 'list':
      return s.spaces ? 'list (commas or spaces)' : 'list (commas)';
    case 'secret':
      return 'secret text';
    case 'url':
      return 'http(s) address';
    case 'store':
      return 'store address';
    default:
      return 'text';
  }
}

function defaultOf(s: Setting): string {
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.default === undefined || s.default === false) return '';
  return `\`${String(s.default)}\``;
}

function row(s: Setting): string {
  const names = [`\`${s.name}\``, ...(s.flag ? [`\`--${s.flag}\``] : [])].join('<br>');
  const old = s.oldNames?.length
    ? ` Old name${s.oldNames.length > 1 ? 's' : ''}, still read with a warning: ${s.oldNames.map((n) => `\`${n}\``).join(', ')}.`
    : '';
  const also = s.use.slice(1).length ? ` Also read by: ${s.use.slice(1).join(', ')}.` : '';
  const type = s.pattern && s.rule ? `${typeOf(s)}: ${s.rule}` : typeOf(s);
  return `| ${names} | ${cell(type)} | ${cell(defaultOf(s))} | ${cell(s.help)}.${also}${old} |`;
}

export function configurationMarkdown(): string {
  const parts = [
    '# Configuration',
    '',
    '<!-- Generated from src/settings/ by `npm run docs`; edit the table there, not this file. -->',
    '',
    'Every setting is an environment variable (a `.env` file in the working folder is read too).',
    'A blank value counts as unset. A value that breaks its rule stops the command with a message',
    `naming the variable and the rule (e.g. \`PORT ${ruleOf(SETTINGS.find((s) => s.name === 'PORT')!)}\`).`,
    'A setting that was renamed still reads its old name, with a deprecation warning once.',
  ];
  for (const [use, title, intro] of SECTIONS) {
    const rows = SETTINGS.filter((s) => s.use[0] === use);
    parts.push(
      '',
      `## ${title}`,
      '',
      intro,
      '',
      '| Variable | Type | Default | Meaning |',
      '| --- | --- | --- | --- |',
      ...rows.map(row),
    );
  }
  return `${parts.join('\n')}\n`;
}
