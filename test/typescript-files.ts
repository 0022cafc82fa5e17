// The TypeScript sources in a folder and below it, declaration files left out: what
// test/build-once.ts compiles for the child processes, and what vitest.config.ts has compiled
// for the workers before they ask.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

export function typescriptFiles(root: string, folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
    .map((file) => join(root, folder, file));
}
