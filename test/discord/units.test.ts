// The adapter's pure parts: config, rate-limit policy, pacing, final layout, admin rendering.
import { describe, expect, it } from 'vitest';
import { shouldRejectOnRateLimit } from '../../adapters/discord/client.js';
import { discordConfigFromEnv } from '../../adapters/discord/config.js';
import { renderFinal } from '../../adapters/discord/format.js';
import { ChannelPace } from '../../adapters/discord/pace.js';
import { renderAdminOutput } from '../../adapters/discord/commands/render.js';
import { threadNameFrom } from '../../adapters/discord/text.js';

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
      maxUploadBytes: 10_000_000,
      applicationId: undefined,
    });
    expect(() => discordConfigFromEnv({ DISCORD_TOKEN: 'secret-x y' })).toThrow(
      /^DISCORD_TOKEN: must be one word/,
    );
    expect(() =>
      discordConfigFromEnv({ DISCORD_TOKEN: 'secret-x', DISCORD_API_URL: 'ftp://x' }),
    ).toThrow(/^DISCORD_API_URL: must be an http\(s\) address/);
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
