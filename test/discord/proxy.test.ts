// The proxy variables on Discord: with HTTP_PROXY set, REST calls (answers, threads, slash
// command replies), attachment downloads and `chatbridge discord register` go through an HTTP
// CONNECT proxy (loopback). discord.js opens its gateway WebSocket with no agent, so that one
// goes directly, and the adapter says so when it starts.
import { ApplicationCommandOptionType as T } from 'discord.js';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { registerCommands, runDiscordCommand } from '../../adapters/discord/register.js';
import { startConnectProxy, type ConnectProxy } from '../service/connect-proxy.js';
import { traceLogger } from '../slack/harness.js';
import { startEngineRig, type EngineRig } from './engine-rig.js';
import { FakeDiscord, TOKEN } from './fake/discord.js';
import { dispatchInteraction, MANAGE_GUILD, type InteractionRecord } from './fake/interactions.js';
import type { FakeMessage } from './fake/payloads.js';
import { alice, RecordingConversation } from './helpers.js';
import { configuredPlatforms } from '../../src/platforms.js';
import { silentLogger } from '../../src/log.js';
import type { ServiceClient } from '../../src/service/api.js';
import { openState } from '../../src/state/index.js';

let proxy: ConnectProxy;
beforeAll(async () => {
  proxy = await startConnectProxy();
});
afterAll(() => proxy.close());
beforeEach(() => {
  proxy.tunnels.length = 0;
  proxy.upstreamPorts.clear();
});

let rig: EngineRig | undefined;
let fake: FakeDiscord | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
  await fake?.close();
  fake = undefined;
});

describe('Discord behind a proxy', () => {
  it('answers and downloads attachments through it; the gateway goes directly, as logged', async () => {
    const trace = traceLogger();
    const calls: string[] = [];
    const observer = {
      platformCall: (_platform: string, call: string, outcome: string) =>
        calls.push(`${call} ${outcome}`),
    };
    rig = await startEngineRig({ proxy: { httpProxy: proxy.url }, logger: trace.logger, observer });
    const f = rig.fake;
    rig.answers.push({ pieces: ['Through the proxy.'] });
    const asked = f.userMessage(f.textChannel.id, alice, `<@${f.bot.id}> Are you there?`, {
      mentions: [f.bot],
    });
    await f.waitFor<FakeMessage>(
      'edit',
      (m) => m.channel_id === asked.id && m.content.includes('Through the proxy.'),
      f.botMessages(asked.id),
    );
    const file = f.attachment(
      'faq.md',
      new TextEncoder().encode('# FAQ\n\nHere.'),
      'text/markdown',
    );
    const upload = dispatchInteraction(f, {
      user: alice,
      permissions: MANAGE_GUILD,
      channelId: f.textChannel.id,
      group: 'source',
      sub: 'upload',
      options: [{ name: 'file', type: T.Attachment, value: file.id }],
      attachments: { [file.id]: file },
    });
    await f.waitFor(
      'interaction',
      (r: InteractionRecord) => r === upload && (r.messages[0]?.history.length ?? 0) > 0,
    );
    expect(upload.messages[0]?.content).toContain('faq.md');

    const http = f.peers.filter((peer) => peer.kind === 'http');
    expect(http.map((peer) => peer.path)).toEqual(
      expect.arrayContaining(['/api/v10/gateway/bot', expect.stringMatching(/^\/cdn\//)]),
    );
    expect(http.filter((peer) => !proxy.upstreamPorts.has(peer.port))).toEqual([]);
    const gateway = f.peers.filter((peer) => peer.kind === 'upgrade');
    expect(gateway.length).toBeGreaterThan(0);
    expect(gateway.some((peer) => proxy.upstreamPorts.has(peer.port))).toBe(false);
    expect(trace.text()).toContain('opens its gateway WebSocket directly');
    // The metrics see each call's outcome, as without a proxy.
    expect(calls.length).toBeGreaterThan(3);
    expect(calls.filter((call) => !call.endsWith(' ok'))).toEqual([]);
  });

  it('registers the slash command through it, from the CLI’s environment too', async () => {
    fake = await new FakeDiscord().start();
    const before = proxy.tunnels.length;
    await registerCommands({
      token: TOKEN,
      apiUrl: fake.apiUrl,
      guildId: fake.guildId,
      proxy: { httpProxy: proxy.url },
    });
    const io = { out: { write: () => true }, err: { write: () => true } };
    const env = { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: fake.apiUrl, HTTP_PROXY: proxy.url };
    expect(await runDiscordCommand(['register'], env, io)).toBe(0);
    expect(fake.commands.get(fake.guildId)).toHaveLength(1);
    expect(fake.commands.get('global')).toHaveLength(1);
    expect(proxy.tunnels.length).toBeGreaterThanOrEqual(before + 2);
    expect(fake.peers.filter((peer) => !proxy.upstreamPorts.has(peer.port))).toEqual([]);
  });

  it('takes the proxy from `chatbridge start`’s environment', async () => {
    fake = await new FakeDiscord().start();
    const env = { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: fake.apiUrl, http_proxy: proxy.url };
    const [discord] = configuredPlatforms(env);
    const state = await openState('memory://');
    const adapter = await discord!.start({
      conversation: new RecordingConversation(),
      client: {} as ServiceClient,
      state,
      logger: silentLogger,
    });
    try {
      await adapter.start();
      const http = fake.peers.filter((peer) => peer.kind === 'http');
      expect(http.map((peer) => peer.path)).toContain('/api/v10/gateway/bot');
      expect(http.filter((peer) => !proxy.upstreamPorts.has(peer.port))).toEqual([]);
    } finally {
      await adapter.stop();
      await state.close();
    }
  });
});
