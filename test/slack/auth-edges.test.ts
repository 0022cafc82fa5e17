// Authorization and signing at their edges: another organization's admin, a timestamp from the
// future, and signed payloads with fields of the wrong types.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SlackAdmin, sharedAdminRunner } from '../../adapters/slack/admin.js';
import { SlackUsers } from '../../adapters/slack/users.js';
import type { SlackApi } from '../../adapters/slack/web.js';
import { silentLogger } from '../../src/log.js';
import type { ServiceClient } from '../../src/service/api.js';
import { openState } from '../../src/state/index.js';
import { BOT_USER, TEAM } from './fake-slack.js';
import { ALICE, BOSS, Harness, mention, sign } from './harness.js';
import { RecordingConversation } from './recording.js';

const FOREIGN_ADMIN = 'UFOREIGN';

let h: Harness;
let conversation: RecordingConversation;
beforeEach(async () => {
  conversation = new RecordingConversation();
  h = await Harness.start({ conversation });
  // A Slack Connect user: an admin of their own organization, posting in our shared channel.
  h.fake.workspace.users.set(FOREIGN_ADMIN, {
    id: FOREIGN_ADMIN,
    name: 'visitor',
    team_id: 'T0OTHERORG',
    is_admin: true,
  });
});
afterEach(async () => {
  await h.close();
});

describe('Slack admins are admins of the installation’s own team', () => {
  it('refuses an admin of another organization (Slack Connect), and opens no modal', async () => {
    expect(await h.command('source add-qa', FOREIGN_ADMIN)).toBe(200);
    await h.fake.waitFor('response_url');
    await h.adapter.idle();
    expect(JSON.stringify(h.fake.responses.at(-1)?.body)).toContain('admins only');
    expect(h.fake.callsOf('views.open')).toHaveLength(0);
    // Our own admin still gets the modal.
    expect(await h.command('source add-qa', BOSS)).toBe(200);
    await h.fake.waitFor('views.open');
  });

  it('on Enterprise Grid, counts an admin of the installation’s own organization', async () => {
    const users = new Map<string, Record<string, unknown>>([
      [
        'UGRID',
        {
          id: 'UGRID',
          team_id: 'T0SISTER',
          is_admin: true,
          enterprise_user: { enterprise_id: 'E1' },
        },
      ],
      [
        'UELSE',
        {
          id: 'UELSE',
          team_id: 'T0ELSE',
          is_admin: true,
          enterprise_user: { enterprise_id: 'E2' },
        },
      ],
    ]);
    const api = {
      call: async (_workspace: string, _method: string, args: Record<string, unknown>) => ({
        ok: true,
        user: users.get(String(args.user)),
      }),
    } as unknown as SlackApi;
    const state = await openState('memory://');
    const admin = new SlackAdmin({
      api,
      users: new SlackUsers(api),
      client: {} as ServiceClient,
      state,
      runner: sharedAdminRunner,
      logger: silentLogger,
      botToken: () => undefined,
      apiUrl: 'http://127.0.0.1:1/api/',
      admins: [],
      enterpriseOf: (workspace) => (workspace === TEAM ? 'E1' : undefined),
      maxUploadBytes: 1024,
    });
    expect(await admin.isAdmin(TEAM, 'UGRID')).toBe(true);
    expect(await admin.isAdmin(TEAM, 'UELSE')).toBe(false);
    await state.close();
  });
});

describe('Slack request timestamps and shapes', () => {
  const eventBody = (event: Record<string, unknown>, eventId: string) =>
    JSON.stringify({ type: 'event_callback', team_id: TEAM, event_id: eventId, event });

  it('refuses a correctly signed request timestamped 6 minutes in the future (401)', async () => {
    const body = eventBody(mention('from the future'), 'EvFuture');
    const future = Math.floor(Date.now() / 1000) + 6 * 60;
    const response = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...sign(body, future) },
      body,
    });
    expect(response.status).toBe(401);
    // Four minutes ahead is inside the window: answered.
    const soonBody = eventBody(mention('soon'), 'EvSoon');
    const soon = Math.floor(Date.now() / 1000) + 4 * 60;
    const ok = await fetch(h.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...sign(soonBody, soon) },
      body: soonBody,
    });
    expect(ok.status).toBe(200);
    await h.adapter.idle();
    expect(conversation.handled.map((e) => e.message.text)).toEqual(['soon']);
  });

  it('answers malformed but signed payloads with 400, never 500, and handles nothing', async () => {
    const interactions: Record<string, unknown>[] = [
      { type: 'block_actions', team: { id: TEAM }, user: { id: ALICE }, actions: 'nope' },
      { type: 'block_actions', team: { id: TEAM }, user: ALICE, actions: [{ action_id: 5 }] },
      { type: 'block_actions', team: 5, user: { id: 5 }, actions: [null] },
      { type: 'view_submission', team: { id: TEAM }, user: { id: ALICE }, view: 'x' },
    ];
    for (const payload of interactions) {
      expect((await h.interaction(payload)).status, JSON.stringify(payload)).toBe(400);
    }
    const events: Record<string, unknown>[] = [
      { type: 'message', user: ALICE, text: { a: 1 }, ts: '1.2', channel: 'C1', team: TEAM },
      { type: 'message', user: { id: 1 }, text: 'hi', ts: { x: 1 }, channel: { id: 'C1' } },
      { type: 'app_mention', user: ALICE, text: [`<@${BOT_USER}> x`], ts: '1.3', channel: 'C1' },
      { type: 'message', user: ALICE, text: 'hi', ts: '1.4', channel: 'D1', thread_ts: { a: 1 } },
    ];
    for (const event of events) {
      expect((await h.event(event)).status, JSON.stringify(event)).toBe(400);
    }
    for (const body of [
      { type: 'event_callback', team_id: TEAM, event: 'x' },
      { type: 'event_callback', team_id: { a: 1 }, event: { type: 5 } },
    ]) {
      expect((await h.post(JSON.stringify(body), 'application/json')).status).toBe(400);
    }
    const command = new URLSearchParams({ command: '/chatbridge', text: 'help' });
    expect((await h.post(command.toString(), 'application/x-www-form-urlencoded')).status).toBe(
      400,
    );
    await h.adapter.idle();
    expect(conversation.handled).toHaveLength(0);
    // Well-formed requests are answered as before.
    expect((await h.event(mention('fine'))).status).toBe(200);
    await h.adapter.idle();
    expect(conversation.handled).toHaveLength(1);
  });
});
