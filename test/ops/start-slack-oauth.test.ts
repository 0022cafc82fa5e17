// `chatbridge start` with Slack OAuth installs (many workspaces, HTTP mode): refused without a
// secret key; with one, the install route sits beside /slack/events and the ops paths on PORT,
// and the process is ready with no workspace installed yet (there is no single token to test).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CLIENT_ID, CLIENT_SECRET } from '../slack/fake-oauth.js';
import { FakeDiscord, TOKEN as DISCORD_TOKEN } from '../discord/fake/discord.js';
import { FakeSlack } from '../slack/fake-slack.js';
import { SIGNING_SECRET } from '../slack/harness.js';
import { scriptedService } from './scripted-service.js';
import { serviceEnv, startBridge, startWith, cleanupsAfterEach, closing } from './start-rig.js';

const cleanups = cleanupsAfterEach();

const oauthEnv = (apiUrl: string, serviceUrl: string) => ({
  ...serviceEnv(serviceUrl),
  SLACK_CLIENT_ID: CLIENT_ID,
  SLACK_CLIENT_SECRET: CLIENT_SECRET,
  SLACK_STATE_SECRET: 'state-secret',
  SLACK_SIGNING_SECRET: SIGNING_SECRET,
  SLACK_API_URL: apiUrl,
});

describe('chatbridge start with Slack OAuth installs', () => {
  it('refuses to start without CHATBRIDGE_SECRET_KEY, naming it and the rule', async () => {
    await expect(
      startWith(oauthEnv('http://127.0.0.1:9/api/', 'http://127.0.0.1:9')),
    ).rejects.toThrow(/^CHATBRIDGE_SECRET_KEY: required; it must be 32 random bytes/);
  });

  it('serves /slack/install beside the ops paths and is ready with nothing installed', async () => {
    const service = closing(cleanups, await scriptedService(Promise.resolve()));
    const fake = closing(cleanups, await new FakeSlack().start());
    const { port } = await startBridge(
      {
        ...oauthEnv(fake.apiUrl, service.url),
        CHATBRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
      },
      cleanups,
    );
    const base = `http://127.0.0.1:${port}`;
    const ready = await fetch(`${base}/readyz`);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { store: 'ok', service: 'ok', 'platform:slack': 'ok' },
    });
    const install = await fetch(`${base}/slack/install`, { redirect: 'manual' });
    expect(install.status).toBe(302);
    expect(install.headers.get('location')).toMatch(
      new RegExp(`^${fake.origin}/oauth/v2/authorize\\?.*client_id=${CLIENT_ID}`),
    );
    // No token was ever used: nothing installed, nothing called.
    expect(fake.calls).toEqual([]);
  });
});

describe('chatbridge start with Slack OAuth installs and Discord shards together', () => {
  it('runs both: /readyz names Slack and each shard, /metrics labels carry no id', async () => {
    const service = closing(cleanups, await scriptedService(Promise.resolve()));
    const slack = closing(cleanups, await new FakeSlack().start());
    const discord = closing(cleanups, await new FakeDiscord().start());
    const { port } = await startBridge(
      {
        ...oauthEnv(slack.apiUrl, service.url),
        CHATBRIDGE_SECRET_KEY: randomBytes(32).toString('hex'),
        DISCORD_TOKEN: DISCORD_TOKEN,
        DISCORD_API_URL: discord.apiUrl,
        DISCORD_SHARD_COUNT: '2',
        DISCORD_SHARDS: '0-1',
      },
      cleanups,
    );
    const base = `http://127.0.0.1:${port}`;
    // Slack listens on PORT, so the port is announced once every adapter has started.
    const ready = await fetch(`${base}/readyz`);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: {
        store: 'ok',
        service: 'ok',
        'platform:slack': 'ok',
        'platform:discord': 'ok',
        'platform:discord:shard 0/2': 'ok',
        'platform:discord:shard 1/2': 'ok',
      },
    });
    expect(discord.gateway.identified.sort()).toEqual([
      [0, 2],
      [1, 2],
    ]);
    const install = await fetch(`${base}/slack/install`, { redirect: 'manual' });
    expect(install.status).toBe(302);
    const metrics = await (await fetch(`${base}/metrics`)).text();
    const connections = metrics
      .split('\n')
      .filter((line) => line.startsWith('chatbridge_platform_connection_ready{'));
    expect(connections).toEqual([
      'chatbridge_platform_connection_ready{platform="discord",connection="shard 0/2"} 1',
      'chatbridge_platform_connection_ready{platform="discord",connection="shard 1/2"} 1',
    ]);
    expect(metrics).not.toContain(discord.guildId);
  });

  it('a half-set Discord shard setting stops start naming its variable, Slack OAuth or not', async () => {
    await expect(
      startWith({
        ...oauthEnv('http://127.0.0.1:9/api/', 'http://127.0.0.1:9'),
        CHATBRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
        DISCORD_TOKEN: DISCORD_TOKEN,
        DISCORD_SHARDS: '0',
      }),
    ).rejects.toThrow(/^DISCORD_SHARD_COUNT: is required when DISCORD_SHARDS lists shard ids/);
  });

  it('shard settings without DISCORD_TOKEN stop start naming it, not run Slack alone', async () => {
    await expect(
      startWith({
        ...oauthEnv('http://127.0.0.1:9/api/', 'http://127.0.0.1:9'),
        CHATBRIDGE_SECRET_KEY: randomBytes(32).toString('base64'),
        DISCORD_SHARD_COUNT: '2',
        DISCORD_SHARDS: '1',
      }),
    ).rejects.toThrow(/^DISCORD_TOKEN: required when DISCORD_SHARDS or DISCORD_SHARD_COUNT is set/);
  });
});
