// /chatbridge against the shared admin table and the local service: permissions, binding the
// channel, and the upload and Q&A modals end to end.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TEAM, BOT_TOKEN } from './fake-slack.js';
import { startChain, type Chain } from './e2e-setup.js';
import { ALICE, BOSS, viewSubmission } from './harness.js';

let chain: Chain | undefined;
let evil: Server | undefined;
afterEach(async () => {
  await chain?.close();
  chain = undefined;
  if (evil) await new Promise<void>((resolve) => evil!.close(() => resolve()));
  evil = undefined;
});

const lastResponse = (c: Chain) => JSON.stringify(c.harness.fake.responses.at(-1)?.body ?? {});

async function run(c: Chain, text: string, user: string): Promise<string> {
  const before = c.harness.fake.calls.filter((x) => x.method === 'response_url').length;
  expect(await c.harness.command(text, user)).toBe(200);
  await c.harness.fake.waitForCall(
    (call) =>
      call.method === 'response_url' &&
      c.harness.fake.callsOf('response_url').indexOf(call) >= before,
  );
  return lastResponse(c);
}

function submission(
  callbackId: string,
  user: string,
  values: Record<string, unknown>,
  view: Record<string, unknown>,
) {
  return viewSubmission({
    team: TEAM,
    user: { id: user },
    callbackId,
    privateMetadata: view.private_metadata,
    values,
  });
}

describe('/chatbridge', () => {
  it('refuses admin commands to non-admins politely, and shows help to everyone', async () => {
    const c = (chain = await startChain());
    const refused = await run(c, 'chatbot list', ALICE);
    expect(refused).toContain('is for admins only');
    expect(c.harness.fake.responses.at(-1)?.body.response_type).toBe('ephemeral');
    const help = await run(c, 'help', ALICE);
    expect(help).toContain('chatbot');
    expect(help).not.toContain('admins only');
  });

  it('answers `session reset` with how to reset in Slack: typing `reset` in the thread', async () => {
    const c = (chain = await startChain());
    const answer = await run(c, 'session reset', ALICE);
    expect(answer).toContain('send `reset` as a message in the conversation thread');
    expect(answer).not.toContain('admins only');
  });

  it('lets workspace admins and CHATBRIDGE_ADMINS run commands; chatbot use binds this channel', async () => {
    const c = (chain = await startChain({ admins: [ALICE] }));
    expect(await run(c, 'chatbot create "Sales bot"', BOSS)).toContain('Created chatbot');
    expect(await run(c, 'chatbot use "Sales bot"', ALICE)).not.toContain('admins only');
    const bound = await c.harness.state.bindings.get(`slack:${TEAM}:C1`);
    const sales = (await c.client.listChatbots()).find((bot) => bot.name === 'Sales bot');
    expect(bound).toBe(sales?.uuid);
    // users.info was asked once for BOSS, then cached.
    await run(c, 'chatbot list', BOSS);
    expect(c.harness.fake.callsOf('users.info').filter((x) => x.args.user === BOSS)).toHaveLength(
      1,
    );
  });

  it('uploads a file through the modal with the Slack permalink as its reference link', async () => {
    const c = (chain = await startChain());
    c.harness.fake.files.set('/files/F1/guide.txt', {
      body: 'Refunds take five days.',
      contentType: 'text/plain',
    });
    expect(await c.harness.command('source upload', BOSS)).toBe(200);
    const open = await c.harness.fake.waitFor('views.open');
    const view = open.args.view as Record<string, unknown>;
    expect(JSON.stringify(view)).toContain('"file_input"');
    const file = {
      id: 'F1',
      name: 'guide.txt',
      mimetype: 'text/plain',
      size: 23,
      url_private_download: `${c.harness.fake.origin}/files/F1/guide.txt`,
      permalink: 'https://test.slack.com/files/UBOSS/F1/guide.txt',
    };
    const answer = await c.harness.interaction(
      submission(
        'chatbridge_source_upload',
        BOSS,
        { file: { file: { type: 'file_input', files: [file] } } },
        view,
      ),
    );
    expect(answer.status).toBe(200);
    const told = await c.harness.fake.waitFor('chat.postEphemeral');
    expect(JSON.stringify(told.args)).toContain('Added data source');
    expect(c.harness.fake.fileRequests).toEqual([
      { path: '/files/F1/guide.txt', authorization: `Bearer ${BOT_TOKEN}` },
    ]);
    const records = await c.harness.state.sources.list(c.chatbotUuid);
    expect(records.map((r) => r.link)).toEqual([file.permalink]);
  });

  it('explains a login page served instead of the file, and never sends the token elsewhere', async () => {
    const c = (chain = await startChain());
    c.harness.fake.files.set('/files/F2/doc.txt', {
      body: '<!DOCTYPE html><html><body>Sign in to Slack</body></html>',
      contentType: 'application/octet-stream',
    });
    const seen: (string | undefined)[] = [];
    evil = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.end('stolen');
    });
    await new Promise<void>((resolve) => evil!.listen(0, '127.0.0.1', resolve));
    const evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/files/F3/x.txt`;
    await c.harness.command('source upload', BOSS);
    const view = (await c.harness.fake.waitFor('views.open')).args.view as Record<string, unknown>;
    const submit = (url: string) =>
      c.harness.interaction(
        submission(
          'chatbridge_source_upload',
          BOSS,
          { file: { file: { files: [{ name: 'doc.txt', size: 10, url_private_download: url }] } } },
          view,
        ),
      );
    await submit(`${c.harness.fake.origin}/files/F2/doc.txt`);
    const login = await c.harness.fake.waitFor('chat.postEphemeral');
    expect(JSON.stringify(login.args)).toContain('files:read');
    await submit(evilUrl);
    await c.harness.fake.waitFor('chat.postEphemeral', (_args, call) => call !== login);
    expect(seen).toEqual([]);
    expect(await c.harness.state.sources.list(c.chatbotUuid)).toEqual([]);
  });

  it('refuses an oversized file in the modal itself', async () => {
    const c = (chain = await startChain());
    await c.harness.command('source upload', BOSS);
    const view = (await c.harness.fake.waitFor('views.open')).args.view as Record<string, unknown>;
    const answer = await c.harness.interaction(
      submission(
        'chatbridge_source_upload',
        BOSS,
        { file: { file: { files: [{ name: 'big.pdf', size: 5 * 1024 * 1024 }] } } },
        view,
      ),
    );
    expect(JSON.parse(answer.text)).toMatchObject({
      response_action: 'errors',
      errors: { file: expect.stringContaining('larger') },
    });
  });

  it('adds a Q&A source through its modal, and gives non-admins no modal', async () => {
    const c = (chain = await startChain());
    expect(await run(c, 'source add-qa', ALICE)).toContain('admins only');
    expect(c.harness.fake.callsOf('views.open')).toHaveLength(0);
    await c.harness.command('source add-qa', BOSS);
    const view = (await c.harness.fake.waitFor('views.open')).args.view as Record<string, unknown>;
    expect(JSON.stringify(view)).toContain('"multiline":true');
    await c.harness.interaction(
      submission(
        'chatbridge_source_qa',
        BOSS,
        {
          question: { question: { type: 'plain_text_input', value: 'Do you ship abroad?' } },
          answer: { answer: { type: 'plain_text_input', value: 'Yes,\nto 40 countries.' } },
        },
        view,
      ),
    );
    const told = await c.harness.fake.waitFor('chat.postEphemeral');
    expect(JSON.stringify(told.args)).toContain('Added data source');
    expect(await c.harness.state.sources.list(c.chatbotUuid)).toHaveLength(1);
  });
});
