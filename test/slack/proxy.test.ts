// The proxy variables on Slack: with HTTP_PROXY set, every Web API call, the Socket Mode
// WebSocket and a slash command's response_url go through an HTTP CONNECT proxy (loopback); a
// host in NO_PROXY is reached directly. The fake records each client's port, so a call that went
// around the proxy shows up as one from a port the proxy never opened.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSlackAdapter, type SlackAdapter } from '../../adapters/slack/index.js';
import type { ServiceClient } from '../../src/service/api.js';
import type { ProxySettings } from '../../src/service/index.js';
import { openState } from '../../src/state/index.js';
import { configuredPlatforms } from '../../src/platforms.js';
import { silentLogger } from '../../src/log.js';
import { startConnectProxy, type ConnectProxy } from '../service/connect-proxy.js';
import { startChain, type Chain } from './e2e-setup.js';
import { APP_TOKEN, BOT_TOKEN, FakeSlack, TEAM } from './fake-slack.js';
import { BOSS, Harness, mention, viewSubmission } from './harness.js';
import { eventIn, installThroughOAuth, mentionOf, oauthConfig } from './oauth-flow.js';
import { RecordingConversation } from './recording.js';

let proxy: ConnectProxy;
beforeAll(async () => {
  proxy = await startConnectProxy();
});
afterAll(() => proxy.close());
beforeEach(() => {
  proxy.tunnels.length = 0;
  proxy.upstreamPorts.clear();
});

let cleanup: (() => Promise<void>) | undefined;
let chain: Chain | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
  await chain?.close();
  chain = undefined;
});

async function socketAdapter(
  settings: ProxySettings | ((fake: FakeSlack) => ProxySettings),
  drainMs?: number,
): Promise<{ fake: FakeSlack; adapter: SlackAdapter }> {
  const fake = await new FakeSlack().start();
  const state = await openState('memory://');
  const adapter = createSlackAdapter(
    {
      botToken: BOT_TOKEN,
      appToken: APP_TOKEN,
      port: 0,
      apiUrl: fake.apiUrl,
      admins: [],
      maxUploadBytes: 1024,
      proxy: typeof settings === 'function' ? settings(fake) : settings,
    },
    {
      conversation: new RecordingConversation(),
      state,
      client: {} as ServiceClient,
      ...(drainMs !== undefined ? { drainMs } : {}),
    },
  );
  cleanup = async () => {
    await adapter.idle();
    await adapter.stop();
    await fake.close();
    await state.close();
  };
  await adapter.start();
  await fake.connected();
  return { fake, adapter };
}

/**
 * An answered mention and a slash command answered through its response_url, which `responses`
 * serves (the fake itself by default).
 */
async function converse(fake: FakeSlack, responses: FakeSlack = fake): Promise<void> {
  await fake.sendEnvelope('env-1', {
    type: 'event_callback',
    team_id: TEAM,
    event_id: 'EvProxy1',
    event: mention('through the proxy'),
  });
  const stop = await fake.waitFor('chat.stopStream');
  expect(fake.workspace.visibleText(String(stop.args.ts))).toBe('Hello there.');
  const responded = responses.waitFor('response_url');
  fake.socketMode.deliver({
    command: '/chatbridge',
    text: 'help',
    team_id: TEAM,
    user_id: 'UALICE',
    channel_id: 'C1',
    response_url: `${responses.origin}/response/1`,
    trigger_id: 'trigger-1',
  });
  await responded;
}

const throughProxy = (fake: FakeSlack) =>
  fake.peers.filter((peer) => proxy.upstreamPorts.has(peer.port));
const aroundProxy = (fake: FakeSlack) =>
  fake.peers.filter((peer) => !proxy.upstreamPorts.has(peer.port));

describe('Slack behind a proxy', () => {
  it('sends every Web API call, the Socket Mode WebSocket and response_url through it', async () => {
    const { fake } = await socketAdapter({ httpProxy: proxy.url });
    await converse(fake);
    expect(proxy.tunnels).toContain(`127.0.0.1:${fake.port}`);
    const kinds = new Set(fake.peers.map((peer) => peer.kind));
    expect(kinds).toEqual(new Set(['http', 'upgrade']));
    const around = fake.peers.filter((peer) => !proxy.upstreamPorts.has(peer.port));
    expect(around).toEqual([]);
    expect(fake.peers.map((peer) => peer.path)).toEqual(
      expect.arrayContaining(['/api/auth.test', '/api/apps.connections.open', '/response/1']),
    );
  });

  it('reaches a host in NO_PROXY directly and the others through the proxy', async () => {
    const responses = await new FakeSlack().start();
    try {
      const { fake } = await socketAdapter((api) => ({
        httpProxy: proxy.url,
        noProxy: `127.0.0.1:${api.port}`,
      }));
      await converse(fake, responses);
      expect(fake.peers.length).toBeGreaterThan(3);
      expect(throughProxy(fake)).toEqual([]);
      expect(responses.peers.map((peer) => peer.path)).toEqual(['/response/1']);
      expect(aroundProxy(responses)).toEqual([]);
    } finally {
      await responses.close();
    }
  });

  it('stops without waiting on a call the proxy never answers, and closes every tunnel', async () => {
    const { fake, adapter } = await socketAdapter({ httpProxy: proxy.url }, 10);
    const held = fake.hold('chat.startStream');
    await fake.sendEnvelope('env-1', {
      type: 'event_callback',
      team_id: TEAM,
      event_id: 'EvProxyHeld',
      event: mention('never answered'),
    });
    await held.reached;
    // The answer's call is still open through its tunnel: stop cuts it after a short grace
    // instead of waiting for it, and every tunnel closes.
    await adapter.stop();
    await proxy.idle();
    held.release();
  });
});

describe('Slack in HTTP mode behind a proxy', () => {
  it('downloads an uploaded file and uploads an export through it', async () => {
    const c = (chain = await startChain({ proxy: { httpProxy: proxy.url } }));
    const fake = c.harness.fake;
    fake.files.set('/files/F1/guide.txt', {
      body: 'Refunds take five days.',
      contentType: 'text/plain',
    });
    expect(await c.harness.command('source upload', BOSS)).toBe(200);
    const view = (await fake.waitFor('views.open')).args.view as Record<string, unknown>;
    const file = {
      id: 'F1',
      name: 'guide.txt',
      mimetype: 'text/plain',
      size: 23,
      url_private_download: `${fake.origin}/files/F1/guide.txt`,
    };
    const submitted = await c.harness.interaction(
      viewSubmission({
        team: TEAM,
        user: { id: BOSS },
        callbackId: 'chatbridge_source_upload',
        privateMetadata: view.private_metadata,
        values: { file: { file: { type: 'file_input', files: [file] } } },
      }),
    );
    expect(submitted.status).toBe(200);
    expect(JSON.stringify((await fake.waitFor('chat.postEphemeral')).args)).toContain(
      'Added data source',
    );
    expect(await c.harness.command('feedback export --format csv', BOSS)).toBe(200);
    await fake.waitFor('files.completeUploadExternal');
    await c.harness.adapter.idle();
    const paths = fake.peers.map((peer) => peer.path);
    expect(paths).toEqual(expect.arrayContaining(['/files/F1/guide.txt']));
    expect(paths.some((path) => path.startsWith('/upload/'))).toBe(true);
    expect(fake.peers.filter((peer) => !proxy.upstreamPorts.has(peer.port))).toEqual([]);
  });
});

describe('Slack OAuth installs behind a proxy', () => {
  it('exchanges the code and answers the installed workspace through it', async () => {
    const fake = await new FakeSlack().start();
    const conversation = new RecordingConversation();
    const h = await Harness.start({
      conversation,
      slack: fake,
      oauth: oauthConfig(),
      proxy: { httpProxy: proxy.url },
    });
    cleanup = async () => {
      await h.close();
    };
    fake.workspace.channels.set('CA1', 'support');
    const a = fake.oauth.installable('TA', { channels: ['CA1'] });
    expect((await installThroughOAuth(h, a.code)).status).toBe(200);
    expect(await eventIn(h, 'TA', mentionOf(a.botUserId, 'CA1'))).toBe(200);
    await h.adapter.idle();
    expect(fake.callsOf('chat.stopStream')).toHaveLength(1);
    // The browser's visit to the consent page is the test's own, not the bridge's.
    const bridge = fake.peers.filter((peer) => peer.path.startsWith('/api/'));
    expect(bridge.map((peer) => peer.path)).toEqual(
      expect.arrayContaining(['/api/oauth.v2.access', '/api/chat.startStream']),
    );
    expect(bridge.filter((peer) => !proxy.upstreamPorts.has(peer.port))).toEqual([]);
  });
});

describe('Slack’s proxy from `chatbridge start`’s environment', () => {
  it('goes through HTTP_PROXY when `chatbridge start` finds it set', async () => {
    const fake = await new FakeSlack().start();
    const env = {
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_SIGNING_SECRET: 'secret',
      SLACK_API_URL: fake.apiUrl,
      PORT: '0',
      HTTP_PROXY: proxy.url,
    };
    const [slack] = configuredPlatforms(env);
    const state = await openState('memory://');
    const adapter = await slack!.start({
      conversation: new RecordingConversation(),
      client: {} as ServiceClient,
      state,
      logger: silentLogger,
    });
    cleanup = async () => {
      await adapter.stop();
      await fake.close();
      await state.close();
    };
    await adapter.start();
    expect(fake.peers.map((peer) => peer.path)).toContain('/api/auth.test');
    expect(fake.peers.filter((peer) => !proxy.upstreamPorts.has(peer.port))).toEqual([]);
  });
});
