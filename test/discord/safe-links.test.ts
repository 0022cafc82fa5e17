// A masked link whose label reads as one host while it opens another is shown with its real
// address on Discord, while streaming and in the final answer; links labelled with words stay.
import { afterEach, describe, expect, it } from 'vitest';
import { isSpoofing, unmaskSpoofedLinks } from '../../adapters/shared/masked-links.js';
import { safeAnswerText } from '../../adapters/discord/format.js';
import type { FakeMessage } from './fake/payloads.js';
import { startEngineRig, type EngineRig } from './engine-rig.js';
import { alice } from './helpers.js';

let rig: EngineRig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('masked links that spoof', () => {
  it('tells a label that reads as another address from one that does not', () => {
    expect(isSpoofing('trusted.example', 'http://evil.example')).toBe(true);
    expect(isSpoofing('https://trusted.example/login', 'http://evil.example/login')).toBe(true);
    expect(isSpoofing('**trusted.example**', 'http://evil.example')).toBe(true);
    // A look-alike in another script is another host.
    expect(isSpoofing('pаypal.com', 'https://paypal.com')).toBe(true);
    expect(isSpoofing('docs.example.com', 'https://docs.example.com/reset')).toBe(false);
    expect(isSpoofing('www.example.com', 'https://example.com')).toBe(false);
    expect(isSpoofing('the refund policy', 'http://evil.example')).toBe(false);
    expect(isSpoofing('v1.2', 'http://evil.example')).toBe(false);
    expect(isSpoofing('trusted.example', '/relative/path')).toBe(true);
  });

  it('unmasks spoofing links only, never inside code', () => {
    const text = [
      'See [trusted.example](http://evil.example) and [the guide](https://docs.example.com).',
      'Reference [bank.example][1] style.',
      '',
      '[1]: https://phish.example/login',
      '',
      '`[trusted.example](http://evil.example)` in code stays.',
    ].join('\n');
    const out = unmaskSpoofedLinks(text);
    expect(out).toContain('See trusted.example (http://evil.example) and [the guide]');
    expect(out).toContain('Reference bank.example (https://phish.example/login) style.');
    expect(out).toContain('`[trusted.example](http://evil.example)` in code stays.');
    expect(safeAnswerText('[trusted.example](http://evil.example)')).toBe(
      'trusted.example (<http://evil.example>)',
    );
  });

  it('shows the real host on Discord, streamed and final, with mentions still off', async () => {
    rig = await startEngineRig();
    const { fake } = rig;
    rig.answers.push({
      pieces: [
        'Log in at [trusted.example](http://evil.example) now. ',
        'Or [https://bank.example](https://phish.example/x), or read [the guide](https://docs.example.com).',
      ],
    });
    const asked = fake.userMessage(fake.textChannel.id, alice, `<@${fake.bot.id}> where?`, {
      mentions: [fake.bot],
    });
    const done = await fake.waitFor<FakeMessage>(
      'edit',
      (m) => m.channel_id === asked.id && m.content.includes('the guide'),
      fake.botMessages(asked.id),
    );
    expect(done.content).toBe(
      'Log in at trusted.example (<http://evil.example>) now. ' +
        'Or https://bank.example (<https://phish.example/x>), or read [the guide](https://docs.example.com).',
    );
    for (const message of fake.botMessages(asked.id)) {
      for (const content of message.history) {
        expect(content).not.toContain('[trusted.example](');
        expect(content).not.toContain('[https://bank.example](');
      }
      for (const allowed of message.allowedMentions)
        expect((allowed as { parse: unknown }).parse).toEqual([]);
    }
  });
});
