// Many workspaces through OAuth, end to end on the fake Slack: installs through the adapter's own
// routes, each workspace answered with its own token, uninstall and revocation delete the
// installation, tokens are encrypted in the store, a wrong key stops the start.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../src/log.js';
import { EncryptedInstallations, openState } from '../../src/state/index.js';
import type { AdminRunner } from '../../adapters/slack/index.js';
import { CLIENT_ID } from './fake-oauth.js';
import { FakeSlack, type FakeCall } from './fake-slack.js';
import { BOSS, Harness, traceLogger, viewSubmission } from './harness.js';
import { eventIn, installThroughOAuth, mentionOf, oauthConfig } from './oauth-flow.js';
import { RecordingConversation, simpleAnswer } from './recording.js';

let harness: Harness | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await harness?.close();
  harness = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const ANSWER = 'Refunds take five days.';

interface BeginOptions {
  state?: Awaited<ReturnType<typeof openState>>;
  key?: Buffer;
  logger?: Logger;
  admin?: AdminRunner;
}

async function begin(options: BeginOptions = {}) {
  const fake = await new FakeSlack().start();
  const conversation = new RecordingConversation(simpleAnswer(ANSWER));
  const h = await Harness.start({
    conversation,
    slack: fake,
    oauth: oauthConfig(options.key),
    ...(options.state ? { state: options.state } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.admin ? { admin: options.admin } : {}),
  });
  harness = h;
  for (const channel of ['CA1', 'CA2', 'CB1']) fake.workspace.channels.set(channel, 'support');
  const a = fake.oauth.installable('TA', { channels: ['CA1', 'CA2'] });
  const b = fake.oauth.installable('TB', { channels: ['CB1'] });
  return { h, fake, conversation, a, b };
}

const inChannel = (fake: FakeSlack, channel: string): FakeCall[] =>
  fake.calls.filter((call) => call.args.channel === channel);

describe('Slack OAuth: many workspaces', () => {
  it('installs two workspaces through its routes and answers each with its own token', async () => {
    const { h, fake, conversation, a, b } = await begin();
    const first = await installThroughOAuth(h, a.code);
    expect(first.authorize.origin + first.authorize.pathname).toBe(
      `${fake.origin}/oauth/v2/authorize`,
    );
    expect(first.authorize.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(first.authorize.searchParams.get('scope')).toContain('chat:write');
    expect(first.status).toBe(200);
    expect(first.page).toContain('Thank you!');
    expect((await installThroughOAuth(h, b.code)).status).toBe(200);
    expect(fake.oauth.exchanges.map((e) => e.ok)).toEqual([true, true]);

    const inA = mentionOf(a.botUserId, 'CA1');
    const inB = mentionOf(b.botUserId, 'CB1');
    expect(await eventIn(h, 'TA', inA)).toBe(200);
    expect(await eventIn(h, 'TB', inB)).toBe(200);
    await h.adapter.idle();

    // Each workspace's own bot mention was recognised and taken out of the question.
    expect(conversation.handled.map((e) => [e.message.workspace, e.message.text])).toEqual([
      ['TA', 'how do refunds work?'],
      ['TB', 'how do refunds work?'],
    ]);
    for (const [channel, token, ts] of [
      ['CA1', a.token, inA.ts],
      ['CB1', b.token, inB.ts],
    ] as const) {
      const calls = inChannel(fake, channel);
      expect(calls.length).toBeGreaterThan(2);
      expect(new Set(calls.map((c) => c.authorization))).toEqual(new Set([`Bearer ${token}`]));
      expect(calls.filter((c) => c.reply?.ok !== true).map((c) => [c.method, c.reply])).toEqual([]);
      const texts = fake.workspace.thread(channel, ts).map((m) => fake.workspace.visibleText(m.ts));
      expect(texts).toEqual([ANSWER]);
    }
    // The asker's name came from each workspace with that workspace's token.
    const userCalls = fake.callsOf('users.info');
    expect(userCalls.map((c) => c.team).sort()).toEqual(['TA', 'TB']);
    expect(fake.calls.filter((c) => c.reply && c.reply.ok !== true)).toEqual([]);
  });

  it('refuses a callback without the browser state: nothing exchanged, nothing stored', async () => {
    const { h, fake, a } = await begin();
    const start = await fetch(`${h.base}/slack/install`, { redirect: 'manual' });
    await start.text();
    const state = new URL(start.headers.get('location')!).searchParams.get('state')!;
    const forged = await fetch(
      `${h.base}/slack/oauth_redirect?${new URLSearchParams({ code: a.code, state })}`,
    );
    await forged.text();
    expect(forged.status).toBeGreaterThanOrEqual(400);
    expect(fake.oauth.exchanges).toEqual([]);
    expect(await h.state.installations.get('slack:team:TA')).toBeUndefined();
  });

  it('runs admin commands and file uploads with the token of the workspace they come from', async () => {
    const uploads: { workspace: string; bytes: string }[] = [];
    const admin: AdminRunner = {
      line: async () => [{ kind: 'notice', tone: 'info', text: 'help text' }],
      command: async (_noun, _verb, _args, ctx) => {
        uploads.push({
          workspace: ctx.workspace,
          bytes: new TextDecoder().decode(ctx.file?.bytes),
        });
        return [{ kind: 'notice', tone: 'ok', text: 'Added data source' }];
      },
    };
    const { h, fake, a, b } = await begin({ admin });
    await installThroughOAuth(h, a.code);
    await installThroughOAuth(h, b.code);
    fake.workspace.users.set(BOSS, { id: BOSS, name: 'boss', team_id: 'TB', is_admin: true });
    fake.files.set('/files/F9/guide.txt', {
      body: 'Refunds take five days.',
      contentType: 'text/plain',
    });
    expect(await h.command('source upload', BOSS, 'CB1', 'TB')).toBe(200);
    const open = await fake.waitFor('views.open');
    expect(open.authorization).toBe(`Bearer ${b.token}`);
    const check = fake.callsOf('users.info').find((c) => c.args.user === BOSS);
    expect(check?.authorization).toBe(`Bearer ${b.token}`);

    const file = {
      id: 'F9',
      name: 'guide.txt',
      mimetype: 'text/plain',
      size: 23,
      url_private_download: `${fake.origin}/files/F9/guide.txt`,
    };
    const submitted = await h.interaction(
      viewSubmission({
        team: 'TB',
        user: { id: BOSS, team_id: 'TB' },
        callbackId: 'chatbridge_source_upload',
        privateMetadata: (open.args.view as { private_metadata?: string }).private_metadata,
        values: { file: { file: { type: 'file_input', files: [file] } } },
      }),
    );
    expect(submitted.status).toBe(200);
    const told = await fake.waitFor('chat.postEphemeral');
    await h.adapter.idle();
    expect(told.authorization).toBe(`Bearer ${b.token}`);
    expect(fake.fileRequests).toEqual([
      { path: '/files/F9/guide.txt', authorization: `Bearer ${b.token}` },
    ]);
    expect(uploads).toEqual([{ workspace: 'TB', bytes: 'Refunds take five days.' }]);
  });

  it('replicas sharing the store: an install begun on one finishes on another, both answer', async () => {
    const key = randomBytes(32);
    const state = await openState('memory://');
    const { h, fake, conversation, a } = await begin({ state, key });
    const other = await Harness.start({
      conversation,
      slack: fake,
      state,
      oauth: oauthConfig(key),
    });
    try {
      expect((await installThroughOAuth(h, a.code, other)).status).toBe(200);
      const first = mentionOf(a.botUserId, 'CA1');
      const second = mentionOf(a.botUserId, 'CA2');
      await eventIn(h, 'TA', first);
      await eventIn(other, 'TA', second);
      await h.adapter.idle();
      await other.adapter.idle();
      expect(conversation.handled.map((e) => e.message.channel).sort()).toEqual(['CA1', 'CA2']);
      const calls = [...inChannel(fake, 'CA1'), ...inChannel(fake, 'CA2')];
      expect(calls.every((c) => c.authorization === `Bearer ${a.token}`)).toBe(true);
    } finally {
      await other.adapter.stop();
    }
  });

  it('keeps installations encrypted in the store: no token in the SQLite file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chatbridge-oauth-'));
    dirs.push(dir);
    const file = join(dir, 'state.sqlite');
    const key = randomBytes(32);
    const state = await openState(`sqlite://${file}`);
    const { h, a } = await begin({ state, key });
    await installThroughOAuth(h, a.code);
    const sealed = await state.installations.get('slack:team:TA');
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain(a.token);
    // What is on disk: the file and its write-ahead log, where a recent commit still is.
    const raw = [file, `${file}-wal`]
      .filter((path) => existsSync(path))
      .map((path) => readFileSync(path).toString('latin1'))
      .join('');
    expect(raw).toContain('slack:team:TA'); // the row is there …
    expect(raw).not.toContain(a.token); // … its token is not readable
    expect(raw).not.toMatch(/xoxb-/);
    // With the key it opens to Bolt's installation.
    const opened = await new EncryptedInstallations(state.installations, key).fetch(
      'slack:team:TA',
    );
    expect(opened?.installation).toMatchObject({ team: { id: 'TA' }, bot: { token: a.token } });
  });

  it('deletes the installation on app_uninstalled: the next event there is not answered', async () => {
    const { h, fake, conversation, a, b } = await begin();
    await installThroughOAuth(h, a.code);
    await installThroughOAuth(h, b.code);
    expect(await eventIn(h, 'TA', { type: 'app_uninstalled' })).toBe(200);
    fake.oauth.revoke(a.token); // Slack's side of an uninstall
    expect(await h.state.installations.get('slack:team:TA')).toBeUndefined();
    expect(await h.state.installations.get('slack:team:TB')).toBeDefined();

    // Authorization fails cleanly (acknowledged, nothing called); the other workspace answers.
    expect(await eventIn(h, 'TA', mentionOf(a.botUserId, 'CA2'))).toBe(200);
    const inB = mentionOf(b.botUserId, 'CB1');
    expect(await eventIn(h, 'TB', inB)).toBe(200);
    await h.adapter.idle();
    expect(inChannel(fake, 'CA2')).toEqual([]);
    expect(conversation.handled.map((e) => e.message.workspace)).toEqual(['TB']);
    expect(inChannel(fake, 'CB1').every((c) => c.authorization === `Bearer ${b.token}`)).toBe(true);
  });

  it('deletes the installation whose bot token tokens_revoked names, and only that one', async () => {
    const { h, fake, conversation, a, b } = await begin();
    await installThroughOAuth(h, a.code);
    await installThroughOAuth(h, b.code);
    const revoked = { type: 'tokens_revoked', tokens: { oauth: [], bot: [b.botUserId] } };
    // Naming another bot changes nothing here.
    expect(await eventIn(h, 'TA', revoked)).toBe(200);
    expect(await h.state.installations.get('slack:team:TA')).toBeDefined();
    expect(await eventIn(h, 'TB', revoked)).toBe(200);
    expect(await h.state.installations.get('slack:team:TB')).toBeUndefined();
    fake.oauth.revoke(b.token);

    await eventIn(h, 'TB', mentionOf(b.botUserId, 'CB1'));
    await eventIn(h, 'TA', mentionOf(a.botUserId, 'CA1'));
    await h.adapter.idle();
    expect(conversation.handled.map((e) => e.message.workspace)).toEqual(['TA']);
    expect(inChannel(fake, 'CB1')).toEqual([]);
  });

  it('finds an org-wide Enterprise Grid install by its enterprise, for any of its workspaces', async () => {
    const { h, fake, conversation } = await begin();
    const org = fake.oauth.installable('TORG', { enterprise: 'E1', orgWide: true });
    expect((await installThroughOAuth(h, org.code)).status).toBe(200);
    expect(await h.state.installations.get('slack:enterprise:E1')).toBeDefined();
    expect(await h.state.installations.get('slack:team:TORG')).toBeUndefined();

    const event = mentionOf(org.botUserId, 'CX1');
    expect(await eventIn(h, 'TX1', event, { enterprise: 'E1', orgWide: true })).toBe(200);
    await h.adapter.idle();
    expect(conversation.handled.map((e) => [e.message.workspace, e.message.text])).toEqual([
      ['TX1', 'how do refunds work?'],
    ]);
    const calls = inChannel(fake, 'CX1');
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.every((c) => c.authorization === `Bearer ${org.token}`)).toBe(true);

    await eventIn(h, 'TX1', { type: 'app_uninstalled' }, { enterprise: 'E1', orgWide: true });
    expect(await h.state.installations.get('slack:enterprise:E1')).toBeUndefined();
  });

  it('writes no token to the log, even at trace level', async () => {
    const { logger, text: logged } = traceLogger();
    const { h, a } = await begin({ logger });
    await installThroughOAuth(h, a.code);
    await eventIn(h, 'TA', mentionOf(a.botUserId, 'CA1'));
    await h.adapter.idle();
    const text = logged();
    expect(text).toContain('slack: app installed');
    expect(text).not.toContain(a.token);
    expect(text).not.toMatch(/xoxb-/);
  });

  it('an installation that does not open is an authorization failure there, not a crash', async () => {
    const { h, fake, conversation, a, b } = await begin();
    await installThroughOAuth(h, a.code);
    await installThroughOAuth(h, b.code);
    // TA's record as another key would have sealed it.
    const foreign = new EncryptedInstallations(h.state.installations, randomBytes(32));
    await foreign.save('slack:team:TA', { team: { id: 'TA' }, bot: { token: 'garbage' } });
    expect(await eventIn(h, 'TA', mentionOf(a.botUserId, 'CA1'))).toBe(200);
    const inB = mentionOf(b.botUserId, 'CB1');
    expect(await eventIn(h, 'TB', inB)).toBe(200);
    await h.adapter.idle();
    expect(conversation.handled.map((e) => e.message.workspace)).toEqual(['TB']);
    expect(inChannel(fake, 'CA1')).toEqual([]);
    expect(fake.calls.some((c) => c.authorization?.includes('garbage'))).toBe(false);
  });

  it('refuses to start with a key other than the one the installations were stored with', async () => {
    const state = await openState('memory://');
    const { h, a } = await begin({ state, key: randomBytes(32) });
    await installThroughOAuth(h, a.code);
    const other = await Harness.start({
      conversation: new RecordingConversation(),
      slack: h.fake,
      state,
      oauth: oauthConfig(randomBytes(32)),
    }).catch((error: unknown) => error);
    expect(other).toBeInstanceOf(Error);
    expect((other as Error).message).toMatch(
      /^CHATBRIDGE_SECRET_KEY: is not the key the stored installations were encrypted with/,
    );
  });
});
