// The manifest and the OAuth install ask for the same scopes, and the manifest subscribes to the
// events that delete an installation.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REDIRECT_PATH, SLACK_BOT_SCOPES } from '../../adapters/slack/oauth.js';

const manifest = readFileSync(
  resolve(import.meta.dirname, '../../adapters/slack/manifest.yml'),
  'utf8',
);

/** The "- item" lines of the YAML list under `key:` (indented below it), comments skipped. */
function listUnder(key: string): string[] {
  const lines = manifest.split('\n');
  const start = lines.findIndex((line) => line.trim() === `${key}:`);
  if (start < 0) return [];
  const indent = lines[start]!.search(/\S/);
  const items: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    if (line.search(/\S/) <= indent) break;
    const item = /^\s*- (\S+)\s*$/.exec(line);
    if (item) items.push(item[1]!);
  }
  return items;
}

describe('adapters/slack/manifest.yml', () => {
  it('lists exactly the bot scopes an OAuth install asks for', () => {
    expect(listUnder('bot')).toEqual(SLACK_BOT_SCOPES);
  });

  it('subscribes to app_uninstalled and tokens_revoked, and shows the OAuth redirect', () => {
    expect(listUnder('bot_events')).toEqual(
      expect.arrayContaining(['app_mention', 'app_uninstalled', 'tokens_revoked']),
    );
    expect(manifest).toContain(`https://chatbridge.example.com${REDIRECT_PATH}`);
  });
});
