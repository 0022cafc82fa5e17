// SLACK_* variables: absent, complete (either mode), or half-set with an error naming what is missing.
// Each value's own rule is the settings table's (a ConfigError listing "NAME rule"); how they go
// together is the adapter's (a SlackConfigError "NAME: rule").
import { describe, expect, it } from 'vitest';
import { slackConfig } from '../../adapters/slack/index.js';
import { readSettings } from '../../src/settings/index.js';
import { escapeMrkdwn, slackToPlainText } from '../../adapters/slack/format.js';
import { isSlackFileUrl } from '../../adapters/slack/download.js';

/** As `chatbridge start` does: the table parses, the adapter's config puts it together. */
const slackConfigFromEnv = (env: Record<string, string | undefined>) =>
  slackConfig(readSettings('slack', env));

describe('slackConfig from the settings table', () => {
  it('is undefined without Slack variables', () => {
    expect(slackConfigFromEnv({ PORT: '8080' })).toBeUndefined();
  });

  it('reads HTTP mode and Socket Mode with defaults', () => {
    expect(
      slackConfigFromEnv({
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_SIGNING_SECRET: 's',
        CHATBRIDGE_ADMINS: 'U1, U2',
      }),
    ).toEqual({
      botToken: 'xoxb-1',
      signingSecret: 's',
      port: 3000,
      apiUrl: 'https://slack.com/api/',
      admins: ['U1', 'U2'],
      maxUploadBytes: 10 * 1024 * 1024,
    });
    const socket = slackConfigFromEnv({
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_APP_TOKEN: 'xapp-1',
      SLACK_API_URL: 'http://127.0.0.1:9/api',
      PORT: '0',
    });
    expect(socket).toMatchObject({
      appToken: 'xapp-1',
      apiUrl: 'http://127.0.0.1:9/api/',
      port: 0,
    });
  });

  it('names the missing or malformed variable when half-configured', () => {
    expect(() => slackConfigFromEnv({ SLACK_APP_TOKEN: 'xapp-1' })).toThrow(
      /^SLACK_BOT_TOKEN: required when SLACK_APP_TOKEN/,
    );
    expect(() => slackConfigFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1' })).toThrow(
      /^SLACK_SIGNING_SECRET: required/,
    );
    expect(() =>
      slackConfigFromEnv({ SLACK_BOT_TOKEN: 'xoxp-1', SLACK_SIGNING_SECRET: 's' }),
    ).toThrow(/^ {2}- SLACK_BOT_TOKEN must be a bot token starting with xoxb-$/m);
    expect(() => slackConfigFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'x' })).toThrow(
      /^ {2}- SLACK_APP_TOKEN must be an app-level token starting with xapp-$/m,
    );
    expect(() =>
      slackConfigFromEnv({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's', PORT: 'abc' }),
    ).toThrow(/^ {2}- PORT must be a whole number from 0 to 65535$/m);
    expect(() =>
      slackConfigFromEnv({
        SLACK_BOT_TOKEN: 'xoxb-1',
        SLACK_SIGNING_SECRET: 's',
        SLACK_API_URL: 'nope',
      }),
    ).toThrow(
      /^ {2}- SLACK_API_URL must be an http\(s\) address, like https:\/\/slack.com\/api\/$/m,
    );
  });
});

describe('slackConfig with OAuth installs', () => {
  const KEY_HEX = 'ab'.repeat(32);
  const trio = { SLACK_CLIENT_ID: '1.2', SLACK_CLIENT_SECRET: 'cs', SLACK_STATE_SECRET: 'ss' };
  const full = { ...trio, SLACK_SIGNING_SECRET: 's', CHATBRIDGE_SECRET_KEY: KEY_HEX };

  it('reads the trio, the signing secret and the key (hex or base64)', () => {
    const config = slackConfigFromEnv(full);
    expect(config).toMatchObject({
      oauth: { clientId: '1.2', clientSecret: 'cs', stateSecret: 'ss' },
      signingSecret: 's',
      port: 3000,
    });
    expect(config?.botToken).toBeUndefined();
    expect(config?.oauth?.secretKey).toEqual(Buffer.alloc(32, 0xab));
    const base64 = Buffer.alloc(32, 7).toString('base64');
    expect(
      slackConfigFromEnv({ ...full, CHATBRIDGE_SECRET_KEY: base64 })?.oauth?.secretKey,
    ).toEqual(Buffer.alloc(32, 7));
  });

  it('refuses to start without a usable CHATBRIDGE_SECRET_KEY', () => {
    expect(() => slackConfigFromEnv({ ...full, CHATBRIDGE_SECRET_KEY: '' })).toThrow(
      /^CHATBRIDGE_SECRET_KEY: required; it must be 32 random bytes written as base64/,
    );
    for (const bad of ['ab'.repeat(16), 'not a key', Buffer.alloc(16).toString('base64')]) {
      expect(() => slackConfigFromEnv({ ...full, CHATBRIDGE_SECRET_KEY: bad })).toThrow(
        /^CHATBRIDGE_SECRET_KEY: must be 32 random bytes/,
      );
    }
  });

  it('names what is missing or conflicting', () => {
    expect(() => slackConfigFromEnv({ ...full, SLACK_STATE_SECRET: undefined })).toThrow(
      /^SLACK_STATE_SECRET: required for OAuth installs/,
    );
    expect(() => slackConfigFromEnv({ SLACK_CLIENT_ID: '1.2' })).toThrow(/^SLACK_CLIENT_SECRET/);
    expect(() => slackConfigFromEnv({ ...full, SLACK_SIGNING_SECRET: '' })).toThrow(
      /^SLACK_SIGNING_SECRET: required for OAuth installs/,
    );
    expect(() => slackConfigFromEnv({ ...full, SLACK_BOT_TOKEN: 'xoxb-1' })).toThrow(
      /^SLACK_BOT_TOKEN: leave it unset with SLACK_CLIENT_ID/,
    );
    expect(() => slackConfigFromEnv({ ...full, SLACK_APP_TOKEN: 'xapp-1' })).toThrow(
      /^SLACK_APP_TOKEN: leave it unset with SLACK_CLIENT_ID/,
    );
  });
});

describe('Slack text helpers', () => {
  it('escapes mrkdwn control characters and reads Slack markup back as plain words', () => {
    expect(escapeMrkdwn('a & <b>')).toBe('a &amp; &lt;b&gt;');
    expect(
      slackToPlainText(
        '<@UBOT> hi <@U2|bob> in <#C1|general> &amp; <!here> <https://a.test>',
        'UBOT',
      ),
    ).toBe('hi @bob in #general & @here https://a.test');
  });

  it('trusts only Slack file hosts and the configured API origin with the token', () => {
    const api = 'http://127.0.0.1:4000/api/';
    expect(isSlackFileUrl('https://files.slack.com/files-pri/T1-F1/x.pdf', api)).toBe(true);
    expect(isSlackFileUrl('http://127.0.0.1:4000/files/F1/x', api)).toBe(true);
    expect(isSlackFileUrl('http://files.slack.com/x', api)).toBe(false);
    expect(isSlackFileUrl('https://files.slack.com.evil.test/x', api)).toBe(false);
    expect(isSlackFileUrl('http://127.0.0.1:4001/files/F1/x', api)).toBe(false);
    expect(isSlackFileUrl('https://user:pw@files.slack.com/x', api)).toBe(false);
  });
});
