// `chatbridge admin` connects to the service only when a command calls it: the usage needs no
// service, and with nothing configured the embedded one would be started (seconds) and its data
// folder filled only to print it. (A command that calls it goes
// through the same client in service/cli-connection.test.ts.)
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runAdminCli } from '../../src/admin-cli.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function admin(args: string[]) {
  dir = mkdtempSync(join(tmpdir(), 'chatbridge-admin-'));
  let output = '';
  const env = { CHATBRIDGE_DATA_DIR: dir, CHATBRIDGE_STORE: 'memory://' };
  const code = await runAdminCli(args, env, { write: (text: string) => (output += text) });
  return { code, output };
}

describe('chatbridge admin', () => {
  it('prints the usage without starting the embedded service', async () => {
    const { code, output } = await admin(['help']);
    expect(code).toBe(0);
    expect(output).toMatch(/chatbot create <name>/);
    expect(existsSync(join(dir, 'local-service.sqlite'))).toBe(false);
  });

  it('names a mistyped command without starting it either', async () => {
    const { code, output } = await admin(['chatbto', 'list']);
    expect(code).toBe(1);
    expect(output).toMatch(/"chatbto" is not a command/);
    expect(existsSync(join(dir, 'local-service.sqlite'))).toBe(false);
  });
});
