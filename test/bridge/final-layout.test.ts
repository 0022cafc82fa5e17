import { describe, expect, it } from 'vitest';
import { CONTINUATION_MARKER, foldRest, planFinal } from '../../src/bridge/final-layout.js';
import { incompleteNotice } from '../../src/bridge/notices.js';

const para = (tag: string, n: number) =>
  `${Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ')}.`;
const TEXT = `${para('alpha', 18)}\n\n${para('beta', 18)}\n\n${para('gamma', 18)}`;
const REST = 'The rest of this answer could not be posted.';

describe('planFinal', () => {
  it('gives each text the position where its body starts', () => {
    const { texts } = planFinal(TEXT, 192, { openCount: 4, lastReserve: 0, needsOne: true });
    const parts = texts.slice(0, 3);
    expect(parts.map((t) => TEXT.slice(t.start, t.start + t.text.length))).toEqual(
      parts.map((t) => t.text),
    );
    expect(parts.map((t) => t.text).join('')).toBe(TEXT);
    expect(texts[3]).toEqual({ text: CONTINUATION_MARKER, start: TEXT.length });
  });
});

describe('foldRest', () => {
  it('keeps everything and the answer’s own notice when the rest fits', () => {
    const start = TEXT.indexOf('gamma0');
    const notice = { kind: 'cut_off' as const, text: 'Cut off.' };
    expect(foldRest(TEXT, 192, start, notice)).toEqual({
      text: TEXT.slice(start),
      notice,
      complete: true,
    });
  });

  it('cuts at a paragraph break and says the rest is missing when it does not', () => {
    const start = TEXT.indexOf('beta0');
    const folded = foldRest(TEXT, 192, start, undefined);
    expect(folded).toEqual({
      text: `${para('beta', 18)}\n\n`,
      notice: { kind: 'incomplete', text: REST },
      complete: false,
    });
  });

  it('closes a code block it cuts, within the budget left beside the notice', () => {
    const code = Array.from({ length: 30 }, (_, i) => `line(${i});`).join('\n');
    const text = `Intro:\n\n\`\`\`ts\n${code}\n\`\`\`\nAfter.`;
    const folded = foldRest(text, 150, 0, undefined);
    expect(folded.complete).toBe(false);
    expect(folded.text.startsWith('Intro:\n\n```ts\nline(0);\n')).toBe(true);
    expect(folded.text.endsWith(';\n```')).toBe(true);
    expect(folded.text.length + folded.notice!.text.length + 4).toBeLessThanOrEqual(150);
  });

  it('from the end of the text: no text, nothing missing', () => {
    expect(foldRest(TEXT, 192, TEXT.length, undefined)).toEqual({ text: '', complete: true });
  });
});

describe('incompleteNotice', () => {
  it('says the rest could not be posted, after the answer’s own notice if any', () => {
    expect(incompleteNotice()).toEqual({ kind: 'incomplete', text: REST });
    expect(incompleteNotice({ kind: 'timeout', text: 'Too slow.' }).text).toBe(`Too slow. ${REST}`);
    expect(incompleteNotice({ kind: 'rate_limited', text: 'Slow down, friend' }).text).toBe(
      `Slow down, friend. ${REST}`,
    );
  });
});
