// The admin table end to end: the real client against the local service on loopback, with the
// real memory state store, as the CLI and the console run it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderText, runAdminLine, type AdminContext } from '../../src/admin/index.js';
import { startLocalService, type LocalService } from '../../src/local-service/server.js';
import type { ServiceClient } from '../../src/service/api.js';
import { createServiceClient } from '../../src/service/client.js';
import { openState } from '../../src/state/index.js';
import { errorsOf, notices } from './context.js';
import { sharedConverters } from '../converters.js';

let service: LocalService;
let client: ServiceClient;
let pages: Server;
let pageUrl: string;

beforeAll(async () => {
  service = await startLocalService({
    apiKeys: ['admin-e2e-key'],
    extractionPool: sharedConverters,
  });
  client = createServiceClient({ baseUrl: service.url, apiKey: 'admin-e2e-key', maxRetries: 0 });
  pages = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      '<html><head><title>Pricing</title></head><body><p>chatbridge is free.</p></body></html>',
    );
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pageUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}/pricing`;
});

afterAll(async () => {
  await client?.close();
  await service?.drain();
  await service?.close();
  await new Promise<void>((resolve) => (pages ? pages.close(() => resolve()) : resolve()));
});

async function context(): Promise<AdminContext> {
  return {
    platform: 'console',
    workspace: 'local',
    channel: 'console',
    thread: 'main',
    userId: 'cli',
    isAdmin: true,
    client,
    state: await openState('memory://'),
    async readFile(path) {
      return {
        name: path.split('/').pop() ?? path,
        bytes: new TextEncoder().encode('# Guide\n\nInstall with npm.'),
      };
    },
  };
}

describe('admin commands against the local service', () => {
  it('runs the whole admin story', async () => {
    const ctx = await context();
    const run = async (line: string) => {
      const out = await runAdminLine(line, ctx);
      expect(errorsOf(out), `${line}\n${renderText(out)}`).toEqual([]);
      return out;
    };
    await run('chatbot create "Support bot" --visibility public --rate-limit 10/60 --citations on');
    const [created] = (await client.listChatbots()).filter((c) => c.name === 'Support bot');
    expect(created?.meta).toMatchObject({
      visibility: 'public',
      rate_limit: [10, 60],
      show_citations: true,
    });
    await run('chatbot use "support BOT"');
    expect(await ctx.state.bindings.get('console:local:console')).toBe(created!.uuid);

    await run('agent create Greeter --type pre-canned --default-message "Hello!" --bias 0.3');
    await run('source add-qa "What is chatbridge?" "A bridge from chat platforms to a chatbot."');
    await run(`source add-url ${pageUrl}`);
    await run('source upload docs/guide.md --link https://example.com/guide');
    await run('source rename guide.md "Install guide"');
    const records = await ctx.state.sources.list(created!.uuid);
    expect(records.map((r) => r.title)).toEqual(
      expect.arrayContaining(['What is chatbridge?', 'Install guide']),
    );
    expect(records).toHaveLength(3);

    await run(
      'agent update greeter --enable --sources "Install guide,what is chatbridge?" --variables team=docs',
    );
    const greeter = (await client.listAgents(created!.uuid)).find((a) => a.name === 'Greeter');
    expect(greeter?.enabled).toBe(true);
    expect(greeter?.data_source_uuids).toHaveLength(2);
    expect(greeter?.meta).toMatchObject({ bias: 0.3, default_message: 'Hello!' });

    await run('tag create Docs --color #1a2b3c --sources "install guide"');
    await run('tag update docs --add-sources "What is chatbridge?"');
    const list = renderText(await run('tag list'));
    expect(list).toMatch(/Docs\s+#1a2b3c\s+Install guide, What is chatbridge\?/);

    const agents = renderText(await run('agent list'));
    expect(agents).toContain('General Q&A');
    expect(agents).toMatch(/Greeter\s+pre-canned\s+on/);
  });

  it('answers the service refusing something with a notice', async () => {
    const ctx = await context();
    await runAdminLine('chatbot create Lonely', ctx);
    await runAdminLine('chatbot use Lonely', ctx);
    const out = await runAdminLine(`source rename ${'0'.repeat(32)} Nothing`, ctx);
    expect(notices(out)).toHaveLength(1);
    expect(errorsOf(out)[0]).toMatch(/^The service does not know that item/);
    expect(renderText(out)).not.toContain('admin-e2e-key');
  });
});
