// Answer text reaches Slack unable to ping, mention or spoof a link: streamed, edited and final,
// and admin answers' blocks and fallback text, each within Block Kit's sizes after escaping.
import { decodeHTML } from 'entities';
import { afterEach, describe, expect, it } from 'vitest';
import { escapeMarkdownText, fitEscaped, slackMarkdown } from '../../adapters/slack/escape.js';
import { adminBlocks } from '../../adapters/slack/admin-render.js';
import type { FakeCall } from './fake-slack.js';
import { startChain, type Chain } from './e2e-setup.js';
import { BOSS, mention } from './harness.js';

let chain: Chain | undefined;
afterEach(async () => {
  await chain?.close();
  chain = undefined;
});

const HOSTILE = [
  'Heads up <!channel> and <!here>, ask <@U123> or <!subteam^S1|@admins> in <#C999>. ',
  'Log in at <http://evil.example|trusted.example> or [trusted.example](http://evil.example). ',
  'Q&A: 1 < 2 > 0, &lt;!everyone&gt; stays text.',
];

/** Every string Slack formats in a call: markdown_text, text, and the texts inside blocks. */
function formatted(call: FakeCall): string[] {
  const out: string[] = [];
  const visit = (value: unknown, key?: string) => {
    if (typeof value === 'string') {
      if (key === 'markdown_text' || key === 'text') out.push(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) visit(v, k);
    }
  };
  visit(call.args);
  return out;
}

/** A Slack control sequence: <!…>, <@…>, <#…>, or any <…|…> / <…> link form. */
const CONTROL = /<[!@#]|<[^<>\s]+\|[^<>]*>|<https?:/;

function expectInert(calls: FakeCall[]): void {
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) {
    for (const text of formatted(call)) expect(text, call.method).not.toMatch(CONTROL);
  }
}

describe('Slack: safe output', () => {
  it('escapes an answer streamed natively: no ping, mention or spoofed link in any call', async () => {
    const c = (chain = await startChain());
    c.scripted.set('hostile', { pieces: HOSTILE });
    await c.harness.event(mention('hostile'));
    await c.harness.fake.waitFor('chat.stopStream');
    await c.harness.adapter.idle();
    const streamed = ['chat.startStream', 'chat.appendStream', 'chat.stopStream'].flatMap((m) =>
      c.harness.fake.callsOf(m),
    );
    expectInert(streamed);
    // What the reader sees, entities read back, is the answer as written, the spoof unmasked.
    const shown = decodeHTML(
      streamed.map((call) => String(call.args.markdown_text ?? '')).join(''),
    );
    expect(shown).toBe(
      HOSTILE.join('').replace(
        '[trusted.example](http://evil.example)',
        'trusted.example (http://evil.example)',
      ),
    );
  });

  it('escapes an answer posted and edited where streaming is refused', async () => {
    const c = (chain = await startChain({
      fake: { behaviour: { refuseStreaming: 'not_allowed' } },
    }));
    c.scripted.set('hostile', { pieces: HOSTILE });
    await c.harness.event(mention('hostile'));
    await c.harness.adapter.idle();
    const calls = ['chat.postMessage', 'chat.update'].flatMap((m) => c.harness.fake.callsOf(m));
    expectInert(calls);
    const final = c.harness.fake.callsOf('chat.update').at(-1)!;
    expect(String(final.args.text)).toContain('Q&amp;A: 1 &lt; 2 &gt; 0');
  });

  it('escapes admin answers, fallback text included, and keeps every section ≤ 3,000', async () => {
    const c = (chain = await startChain());
    expect(await c.harness.command('chatbot create "Q&A <b>bot</b> <!channel>"', BOSS)).toBe(200);
    await c.harness.fake.waitFor('response_url');
    const created = c.harness.fake.responses.at(-1)!.body;
    expect(String(created.text)).toContain('Q&amp;A &lt;b&gt;bot&lt;/b&gt; &lt;!channel&gt;');
    expectInert(c.harness.fake.callsOf('response_url'));
    expect(await c.harness.command('help', BOSS)).toBe(200);
    await c.harness.fake.waitForCall(
      (call) => call.method === 'response_url' && c.harness.fake.responses.length === 2,
    );
    const help = c.harness.fake.responses.at(-1)!.body;
    const blocks = help.blocks as { text?: { text: string } }[];
    expect(blocks.length).toBeGreaterThan(1);
    expect(blocks.length).toBeLessThanOrEqual(50);
    for (const block of blocks) expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(3000);
  });
});

describe('Slack escaping', () => {
  it('keeps blockquote markers and escapes every other &, <, >', () => {
    expect(escapeMarkdownText('> quoted <b> & >\n>> a > b\ntext > x')).toBe(
      '> quoted &lt;b&gt; &amp; &gt;\n>> a &gt; b\ntext &gt; x',
    );
  });

  it('escapes by prefix: a longer text escapes to a longer text (appends stay appends)', () => {
    const text = '> a <!here> & [x.example](http://y.example) ok >> `<@U1>` done';
    for (let i = 1; i <= text.length; i++) {
      // Only whole links are shown while streaming (safe-markdown holds a link back).
      const prefix = text.slice(0, i);
      if (/\[[^\]]*\]?$|\]\([^)]*$/.test(prefix)) continue;
      expect(slackMarkdown(text).startsWith(slackMarkdown(prefix))).toBe(true);
    }
  });

  it('cuts escaped text to a limit without splitting an entity', () => {
    const cut = fitEscaped(escapeMarkdownText('<'.repeat(10)), 10);
    expect(cut).toBe('&lt;&lt;…');
    expect(slackMarkdown('<'.repeat(5000)).length).toBeLessThanOrEqual(12_000);
  });

  it('measures admin sections after escaping, splitting long help over several blocks', () => {
    const text = Array.from({ length: 300 }, (_, i) => `line ${i} <a&b>`).join('\n');
    const blocks = adminBlocks([{ kind: 'text', text }]) as { text: { text: string } }[];
    expect(blocks.length).toBeGreaterThan(1);
    for (const block of blocks) expect(block.text.text.length).toBeLessThanOrEqual(3000);
    expect(blocks.map((b) => b.text.text).join('')).not.toMatch(/<a&b>/);
  });
});
