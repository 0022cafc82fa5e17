import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminCommands, commandName } from '../../src/admin/index.js';
import { adminReferenceMarkdown } from '../../src/admin/reference.js';

describe('docs/admin.md', () => {
  const doc = readFileSync(resolve(import.meta.dirname, '../../docs/admin.md'), 'utf8');

  it('is the reference generated from the command table (run `npm run docs` after a change)', () => {
    expect(doc).toBe(adminReferenceMarkdown());
  });

  it('has a section for every command', () => {
    for (const command of adminCommands) expect(doc).toContain(`## ${commandName(command)}`);
  });
});
