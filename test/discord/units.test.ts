// The adapter's pure parts: config, rate-limit policy, pacing, final layout, admin rendering.
import { describe, expect, it } from 'vitest';
import { shouldRejectOnRateLimit } from '../../adapters/discord/client.js';
import { discordConfig } from '../../adapters/discord/config.js';
import { readSettings } from '../../src/settings/index.js';
import { discordNotice, renderFinal } from '../../adapters/discord/format.js';
import { ArrivalOrder } from '../../adapters/discord/arrival.js';
import { ChannelPace } from '../../adapters/discord/pace.js';
import { renderAdminOutput } from '../../adapters/discord/commands/render.js';
import { threadNameFrom } from '../../adapters/discord/text.js';

/** As `chatbridge start` does: the table parses, the adapter's config puts it together. */
const discordConfigFromEnv = (env: Record<string, string | undefined>) =>
  discordConfig(readSettings('discord', env));

describe('discord config', () => {
  it('is off without a token, and names the field at fault without the token', () => {
    expect(discordConfigFromEnv({})).toBeUndefined();
    expect(
      discordConfigFromEnv({
        DISCORD_TOKEN: 'Bot abc.def',
        DISCORD_API_URL: 'http://127.0.0.1:9/api/',
      }),
    ).toEqual({
      token: 'abc.def',
      apiUrl: 'http://127.0.0.1:9/api',
      maxUploadBytes: 10 * 1024 * 1024,
      applicationId: undefined,
      messageContent: 'auto',
      admins: [],
    });
    const tuned = discordConfigFromEnv({
      DISCORD_TOKEN: 'abc.def',
      DISCORD_MESSAGE_CONTENT: ' OFF ',
      CHATBRIDGE_ADMINS: 'U012ABCDEF, 123456789012345678,,',
    });
    expect(tuned).toMatchObject({
      messageContent: 'off',
      admins: ['U012ABCDEF', '123456789012345678'],
    });
    expect(() =>
      discordConfigFromEnv({ DISCORD_TOKEN: 'secret-x', DISCORD_MESSAGE_CONTENT: 'maybe' }),
    ).toThrow(/^ {2}- DISCORD_MESSAGE_CONTENT must be one of auto, on, off$/m);
    expect(() => discordConfigFromEnv({ DISCORD_TOKEN: 'secret-x y' })).toThrow(
      /^ {2}- DISCORD_TOKEN must be one word/m,
    );
    expect(() =>
      discordConfigFromEnv({ DISCORD_TOKEN: 'secret-x', DISCORD_API_URL: 'ftp://x' }),
    ).toThrow(/^ {2}- DISCORD_API_URL must be an http\(s\) address including \/api/m);
    expect(() =>
      discordConfigFromEnv({ DISCORD_TOKEN: 'secret-x', CHATBRIDGE_MAX_UPLOAD_BYTES: '0' }),
    ).toThrow(/CHATBRIDGE_MAX_UPLOAD_BYTES/);
    try {
      discordConfigFromEnv({ DISCORD_TOKEN: 'secret-x y' });
    } catch (error) {
      expect((error as Error).message).not.toContain('secret');
    }
  });
});

describe('discord arrival order', () => {
  it('starts preparations of one key in arrival order, others freely, and forgets idle keys', async () => {
    const order = new ArrivalOrder();
    const log: string[] = [];
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (releaseFirst = resolve));
    const answered = (name: string) => ({
      answered: Promise.resolve().then(() => void log.push(`answered ${name}`)),
    });
    const a = order.run('t1', async () => {
      await firstHeld;
      log.push('handle a');
      return answered('a');
    });
    const b = order.run('t1', async () => {
      log.push('handle b');
      return answered('b');
    });
    const other = order.run('t2', async () => {
      log.push('handle other');
      return undefined;
    });
    await other;
    expect(log).toEqual(['handle other']);
    expect(order.size).toBe(1);
    releaseFirst();
    await Promise.all([a, b]);
    expect(log.indexOf('handle a')).toBeLessThan(log.indexOf('handle b'));
    expect(log).toContain('answered b');
    expect(order.size).toBe(0);
  });

  it('a failed preparation does not block the next one', async () => {
    const order = new ArrivalOrder();
    const failed = order.run('t', async () => {
      throw new Error('dedup store down');
    });
    const next = order.run('t', async () => undefined);
    await expect(failed).rejects.toThrow('dedup store down');
    await expect(next).resolves.toBeUndefined();
    expect(order.size).toBe(0);
  });
});

describe('discord notices', () => {
  it('words "no chatbot here" for Discord: the slash command, and what works in a DM', () => {
    const notice = { kind: 'not_configured' as const, text: 'engine words' };
    expect(discordNotice(notice, false).text).toContain('/chatbridge chatbot use <name>');
    const dm = discordNotice(notice, true).text;
    expect(dm).toContain('/chatbridge chatbot default <name>` in a DM with the bot');
    expect(dm).toContain('CHATBRIDGE_ADMINS');
    expect(dm).toContain('CHATBRIDGE_CHATBOT');
    const other = { kind: 'timeout' as const, text: 'took too long' };
    expect(discordNotice(other, true)).toBe(other);
  });
});

describe('discord rate-limit policy', () => {
  it('rejects edits always, threads and typing unless it is only discord.js pacing itself', () => {
    const edit = { method: 'PATCH', route: '/channels/:id/messages/:id' };
    const thread = { method: 'POST', route: '/channels/:id/messages/:id/threads' };
    const post = { method: 'POST', route: '/channels/:id/messages' };
    expect(shouldRejectOnRateLimit({ ...edit, global: false })).toBe(true);
    expect(shouldRejectOnRateLimit({ ...edit, global: true })).toBe(true);
    expect(shouldRejectOnRateLimit({ ...thread, global: false })).toBe(true);
    expect(shouldRejectOnRateLimit({ ...thread, global: true })).toBe(false);
    expect(shouldRejectOnRateLimit({ ...post, global: false })).toBe(false);
  });
});

describe('discord channel pace', () => {
  it('shares the edit budget between answers in a channel, widens on 429 and decays back', () => {
    let now = 0;
    const pace = new ChannelPace({ baseMs: 1000, maxMs: 8000, decayMs: 10_000, now: () => now });
    expect(pace.intervalMs('c')).toBe(1000);
    const closeA = pace.open('c');
    const closeB = pace.open('c');
    expect(pace.intervalMs('c')).toBe(2000);
    expect(pace.intervalMs('other')).toBe(1000);
    pace.limited('c', 3000);
    expect(pace.intervalMs('c')).toBe(3000);
    pace.limited('c', 100);
    expect(pace.intervalMs('c')).toBe(6000);
    pace.limited('c', 100);
    expect(pace.intervalMs('c')).toBe(8000);
    now = 10_000;
    expect(pace.intervalMs('c')).toBe(4000);
    closeA();
    closeB();
    now = 40_000;
    expect(pace.intervalMs('c')).toBe(1000);
  });
});

describe('discord final layout', () => {
  it('puts a notice and numbered sources after the text, continuing in more messages when full', () => {
    const sources = Array.from({ length: 30 }, (_, i) => ({
      number: i + 1,
      title: `Title ${i + 1} with a long name ${'x'.repeat(80)}`,
      link: `https://example.com/${i + 1}?q=a b`,
      dataSourceUuid: String(i),
    }));
    const messages = renderFinal({
      text: 'y'.repeat(1900),
      sources,
      notice: { kind: 'cut_off', text: 'The answer was cut off.' },
    });
    expect(messages[0]).toBe(`${'y'.repeat(1900)}\n\n> \u26a0\ufe0f The answer was cut off.`);
    expect(messages.length).toBeGreaterThan(2);
    for (const m of messages) expect(m.length).toBeLessThanOrEqual(2000);
    const lines = messages.slice(1).join('\n').split('\n');
    expect(lines[0]).toBe('**Sources**');
    expect(lines.filter((l) => /^\[\d+\] /.test(l))).toHaveLength(30);
    expect(lines[1]).toBe(
      `[1] Title 1 with a long name ${'x'.repeat(80)} <https://example.com/1?q=a%20b>`,
    );
    expect(renderFinal({ text: '  ', sources: [] })).toEqual(['\u2026']);
  });

  it('names threads from the first line of the question, within 100 characters', () => {
    expect(threadNameFrom('**Why** is it slow?\nmore', 'fallback')).toBe('Why is it slow?');
    expect(threadNameFrom('   ', 'Question from alice')).toBe('Question from alice');
    const long = threadNameFrom('word '.repeat(60), 'f');
    expect(long.length).toBeLessThanOrEqual(100);
    expect(long.endsWith('word\u2026')).toBe(true);
  });
});

describe('discord admin output', () => {
  it('renders blocks as markdown within 2,000 characters, re-opening a cut code block', () => {
    const rows = Array.from({ length: 120 }, (_, i) => [`chatbot-${i}`, 'f'.repeat(32), 'public']);
    const messages = renderAdminOutput([
      { kind: 'notice', tone: 'ok', text: 'Done.' },
      { kind: 'fields', title: 'Chatbot *x*', fields: [['Name', 'a_b']] },
      { kind: 'table', title: 'Chatbots', columns: ['Name', 'UUID', 'Visibility'], rows },
    ]);
    expect(messages[0]).toBe('\u2705 Done.\n\n**Chatbot \\*x\\***\n**Name:** a\\_b');
    expect(messages[1]?.startsWith('**Chatbots**\n```\nName ')).toBe(true);
    expect(messages.length).toBeGreaterThan(2);
    for (const m of messages) {
      expect(m.length).toBeLessThanOrEqual(2000);
      expect((m.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(messages.join('\n').match(/chatbot-\d+/g)).toHaveLength(120);
  });
});
