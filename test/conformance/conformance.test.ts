// The conformance rules themselves: each catches what it is for (a check that passes everything
// would let the e2e tests pass without checking). The e2e tests run them through the fakes'
// close(); this file also holds the Slack manifest to the manifest reference's rules.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkRequest } from './discord/check.js';
import { checkCall } from './slack/check.js';

describe('Slack conformance rules', () => {
  it('pass what the bridge sends', () => {
    expect(
      checkCall({
        method: 'chat.startStream',
        args: {
          channel: 'C1',
          thread_ts: '1.2',
          markdown_text: 'Hi',
          recipient_user_id: 'U1',
          recipient_team_id: 'T1',
        },
      }),
    ).toEqual([]);
  });

  it('catch unknown or mistyped arguments and broken Block Kit limits', () => {
    const section = (n: number) => ({
      type: 'section',
      text: { type: 'mrkdwn', text: 'x'.repeat(n) },
    });
    expect(
      checkCall({
        method: 'chat.update',
        args: { channel: 'C1', ts: '1.2', blocks: [section(3068)] },
      }),
    ).toEqual(['chat.update blocks[0].text: 3068 characters, Slack allows 3000']);
    expect(
      checkCall({
        method: 'chat.postMessage',
        args: { channel: 'C1', blocks: Array(51).fill(section(1)) },
      }),
    ).toContain('chat.postMessage blocks: 51 blocks, Slack allows 50');
    expect(
      checkCall({
        method: 'chat.appendStream',
        args: { channel: 'C1', ts: '1.2', markdown_text: 'x'.repeat(12_001) },
      }),
    ).toEqual(['chat.appendStream markdown_text: 12001 characters, Slack allows 12000']);
    expect(
      checkCall({
        method: 'chat.postMessage',
        args: { channel: 'C1', markdown_text: 'a', text: 'b' },
      }),
    ).toEqual(['chat.postMessage markdown_text cannot go with text or blocks']);
    expect(
      checkCall({
        method: 'reactions.add',
        args: { channel: 'C1', name: 'eyes', timestamp: '1.2', emoji: 'x' },
      }),
    ).toHaveLength(1);
    expect(checkCall({ method: 'users.info', args: { user: 5 } })).toHaveLength(1);
    expect(checkCall({ method: 'chat.unknownMethod', args: {} })).toHaveLength(1);
    expect(
      checkCall({
        method: 'views.open',
        args: {
          trigger_id: 't',
          view: {
            type: 'modal',
            title: { type: 'plain_text', text: 'A title longer than 24 characters' },
            blocks: [],
          },
        },
      }),
    ).toEqual(['views.open view.title: 33 characters, Slack allows 24']);
  });
});

describe('Discord conformance rules', () => {
  const message = { content: 'Hi', allowed_mentions: { parse: [] } };
  it('pass what the bridge sends', () => {
    expect(checkRequest({ method: 'POST', path: '/channels/1/messages', body: message })).toEqual(
      [],
    );
    expect(
      checkRequest({ method: 'PATCH', path: '/channels/1/messages/2', body: message }),
    ).toEqual([]);
    expect(checkRequest({ method: 'GET', path: '/users/@me', body: undefined })).toEqual([]);
  });

  it('catch bodies the API description refuses, undocumented routes and mentions left on', () => {
    expect(
      checkRequest({
        method: 'POST',
        path: '/channels/1/messages',
        body: { ...message, content: 5 },
      }),
    ).not.toEqual([]);
    expect(
      checkRequest({
        method: 'POST',
        path: '/channels/1/messages',
        body: { ...message, content: 'x'.repeat(4001) },
      }),
    ).not.toEqual([]);
    expect(
      checkRequest({ method: 'POST', path: '/channels/1/messages', body: { content: 'Hi' } }),
    ).toEqual(['POST /channels/1/messages: a message without allowed_mentions {parse: []}']);
    expect(checkRequest({ method: 'POST', path: '/channels/1/pins', body: {} })).toEqual([
      "POST /channels/1/pins: not an operation of Discord's API description",
    ]);
    expect(
      checkRequest({ method: 'POST', path: '/interactions/1/tok/callback', body: { type: 'x' } }),
    ).not.toEqual([]);
  });
});

// Slack's app manifest reference (docs.slack.dev/reference/app-manifest). Slack publishes no
// JSON schema of it; these are the reference's documented limits for the fields we use.
const manifestShape = z.object({
  display_information: z.object({
    name: z.string().min(1).max(35),
    description: z.string().max(140).optional(),
    background_color: z
      .string()
      .regex(/^#(?:[\da-fA-F]{3}){1,2}$/)
      .optional(),
  }),
  features: z
    .object({
      bot_user: z.object({
        display_name: z
          .string()
          .max(80)
          .regex(/^[\w\-.]+$/),
        always_online: z.boolean(),
      }),
      assistant_view: z.object({ assistant_description: z.string().min(1) }).optional(),
      slash_commands: z.array(
        z.object({
          command: z.string().max(32).regex(/^\//),
          description: z.string().min(1).max(2000),
          usage_hint: z.string().max(1000).optional(),
          should_escape: z.boolean().optional(),
        }),
      ),
    })
    .loose(),
  oauth_config: z.object({ scopes: z.object({ bot: z.array(z.string()).max(255) }) }).loose(),
  settings: z
    .object({
      event_subscriptions: z.object({ bot_events: z.array(z.string()).max(100) }).loose(),
      interactivity: z.object({ is_enabled: z.boolean() }).loose(),
      socket_mode_enabled: z.boolean(),
    })
    .loose(),
});

describe('adapters/slack/manifest.yml', () => {
  it("keeps within the manifest reference's limits", () => {
    const manifest = load(
      readFileSync(resolve(import.meta.dirname, '../../adapters/slack/manifest.yml'), 'utf8'),
    );
    const result = manifestShape.safeParse(manifest);
    expect(result.success ? [] : result.error.issues).toEqual([]);
  });
});
