// Imports point one way: adapters → bridge/admin → service/state. These tests read every source
// file's imports and prove the low layers import no chat SDK and nothing above them.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');

function filesUnder(dir: string): string[] {
  const abs = join(root, dir);
  return readdirSync(abs).flatMap((name) => {
    const path = join(abs, name);
    if (statSync(path).isDirectory()) return filesUnder(relative(root, path));
    return name.endsWith('.ts') ? [relative(root, path)] : [];
  });
}

/** Import specifiers of a file, relative ones resolved to repo paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return specs.map((spec) =>
    spec.startsWith('.') ? relative(root, resolve(root, dirname(file), spec)) : spec,
  );
}

const SDKS = /^(@slack\/|discord\.js|@discordjs\/)/;

const rules: { layer: string; forbidden: RegExp }[] = [
  { layer: 'src/service', forbidden: /^(src\/(bridge|admin|state|local-service)|adapters)\// },
  { layer: 'src/state', forbidden: /^(src\/(bridge|admin|service|local-service)|adapters)\// },
  { layer: 'src/bridge', forbidden: /^(src\/(admin|local-service)|adapters)\// },
  { layer: 'src/admin', forbidden: /^(src\/(bridge\/(?!types)|local-service)|adapters)\// },
  { layer: 'src/local-service', forbidden: /^(src\/(bridge|admin)|adapters)\// },
  // Health and metrics: read the engine's observer types, know no platform.
  { layer: 'src/ops', forbidden: /^(src\/(admin|local-service)|adapters)\// },
];

describe('import boundaries', () => {
  for (const { layer, forbidden } of rules) {
    it(`${layer} imports no chat SDK and nothing above it`, () => {
      const files = filesUnder(layer);
      expect(files.length).toBeGreaterThan(0);
      const offending = files.flatMap((file) =>
        importsOf(file)
          .filter((spec) => SDKS.test(spec) || forbidden.test(spec))
          .map((spec) => `${file} → ${spec}`),
      );
      expect(offending).toEqual([]);
    });
  }

  it('the check itself catches a forbidden import', () => {
    expect(SDKS.test('@slack/bolt')).toBe(true);
    expect(rules[0]!.forbidden.test('src/bridge/engine.js')).toBe(true);
    expect(rules[2]!.forbidden.test('adapters/slack/index.js')).toBe(true);
  });
});
