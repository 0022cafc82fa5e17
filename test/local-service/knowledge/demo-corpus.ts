// A small corpus shaped like the demo chatbot's (README.md and docs/architecture.md): a README
// with a "To run the tests … npm test" section, and an architecture page whose one sentence
// about tests also names Slack and connecting chatbridge, the words of a question asked before.
import type { SourceText } from '../../../src/local-service/knowledge/index.js';

export const README = [
  '# chatbridge',
  '',
  'chatbridge is a bridge that puts a hosted chatbot into Slack and Discord.',
  '',
  '## Install',
  '',
  'Install it with `npm install` on Node.js 20 or newer.',
  '',
  '## Connecting Slack',
  '',
  'To connect chatbridge to Slack, set `SLACK_BOT_TOKEN` and `SLACK_APP_TOKEN`, then run `chatbridge start`.',
  '',
  '## Connecting Discord',
  '',
  'To connect chatbridge to Discord, set `DISCORD_TOKEN`, then run `chatbridge start`.',
  '',
  '## Development',
  '',
  'To run the tests (typecheck, lint, and the test suite):',
  '',
  '```sh',
  'npm test',
  '```',
  '',
].join('\n');

export const ARCHITECTURE = [
  '# How chatbridge is built',
  '',
  'The bridge connects chatbridge to Slack and Discord through small adapters.',
  'Everything that talks to the outside (the Slack and Discord API base URLs, the store URL, the clock) is injected, so the tests run against fakes and the local service on loopback.',
  '',
  '## Refunds',
  '',
  'A refund of a hosted plan is issued within 30 days of purchase.',
  '',
].join('\n');

/** Another product, with its own install and Discord sections: what a bare "it" could mean. */
export const AURORA = [
  '# Aurora',
  '',
  'Aurora is a photo editor.',
  '',
  '## Install',
  '',
  'Install Aurora with pip.',
  '',
  '## Discord',
  '',
  'Aurora posts photos to Discord.',
  '',
].join('\n');

export function demoSources(chatbotUuid: string): SourceText[] {
  const source = (uuid: string, title: string, text: string): SourceText => ({
    uuid,
    chatbotUuid,
    title,
    type: 'upload',
    fileName: title,
    text,
  });
  return [
    source('readme', 'README.md', README),
    source('architecture', 'docs-architecture.md', ARCHITECTURE),
    source('aurora', 'aurora.md', AURORA),
  ];
}
