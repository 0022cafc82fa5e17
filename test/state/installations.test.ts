// Installations at rest: AES-256-GCM per value with a fresh IV, bound to the key it is stored
// under; a wrong key or an altered value is a clear error, never garbage.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EncryptedInstallations,
  openState,
  parseSecretKey,
  SealedValueError,
  SecretKeyError,
} from '../../src/state/index.js';
import { SecretBox } from '../../src/state/secret-box.js';

describe('parseSecretKey', () => {
  it('takes 32 bytes as hex or base64 (standard or URL-safe)', () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString('hex'), 'K')).toEqual(key);
    expect(parseSecretKey(key.toString('base64'), 'K')).toEqual(key);
    expect(parseSecretKey(` ${key.toString('base64url')} `, 'K')).toEqual(key);
  });

  it('names the variable and the rule otherwise', () => {
    expect(() => parseSecretKey(undefined, 'MY_KEY')).toThrow(SecretKeyError);
    expect(() => parseSecretKey('  ', 'MY_KEY')).toThrow(/^MY_KEY: required; it must be 32/);
    for (const bad of [
      randomBytes(31).toString('hex'),
      randomBytes(33).toString('base64'),
      'correct horse battery staple',
      'zz'.repeat(32),
    ]) {
      expect(() => parseSecretKey(bad, 'MY_KEY')).toThrow(/^MY_KEY: must be 32 random bytes/);
    }
  });
});

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('opens what it sealed; the same text seals differently each time', () => {
    const one = box.seal('secret words', 'label');
    const two = box.seal('secret words', 'label');
    expect(one).not.toBe(two);
    expect(one).not.toContain('secret');
    expect(box.open(one, 'label')).toBe('secret words');
    expect(box.open(two, 'label')).toBe('secret words');
  });

  it('refuses another key, another label, an altered value, and plain text', () => {
    const sealed = box.seal('secret words', 'label');
    expect(() => new SecretBox(randomBytes(32)).open(sealed, 'label')).toThrow(SealedValueError);
    expect(() => box.open(sealed, 'other')).toThrow(/does not open with this key/);
    const bytes = Buffer.from(sealed.slice(3), 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(() => box.open(`v1:${bytes.toString('base64')}`, 'label')).toThrow(SealedValueError);
    expect(() => box.open('{"token":"x"}', 'label')).toThrow(/not in the sealed format/);
    expect(() => box.open('v1:AAAA', 'label')).toThrow(/truncated/);
  });
});

describe('EncryptedInstallations', () => {
  it('stores, fetches and deletes records sealed under their key', async () => {
    const state = await openState('memory://');
    const key = randomBytes(32);
    const records = new EncryptedInstallations(state.installations, key, () => 0);
    await records.save('slack:team:T1', { bot: { token: 'tok-123' } });
    expect(await records.fetch('slack:team:T1')).toEqual({
      savedAt: new Date(0).toISOString(),
      installation: { bot: { token: 'tok-123' } },
    });
    expect(await state.installations.get('slack:team:T1')).not.toContain('tok-123');
    // A value moved under another key does not open there.
    await state.installations.set(
      'slack:team:T2',
      (await state.installations.get('slack:team:T1'))!,
    );
    await expect(records.fetch('slack:team:T2')).rejects.toThrow(SealedValueError);
    await records.delete('slack:team:T1');
    expect(await records.fetch('slack:team:T1')).toBeUndefined();
    await expect(records.save('no key', {})).rejects.toThrow(/must be "platform:id"/);
    await state.close();
  });

  it('verifies the key at start: the first key is remembered, another is refused', async () => {
    const state = await openState('memory://');
    const key = randomBytes(32);
    await new EncryptedInstallations(state.installations, key).verifyKey('MY_KEY');
    await new EncryptedInstallations(state.installations, key).verifyKey('MY_KEY');
    const wrong = new EncryptedInstallations(state.installations, randomBytes(32));
    await expect(wrong.verifyKey('MY_KEY')).rejects.toThrow(
      /^MY_KEY: is not the key the stored installations were encrypted with/,
    );
    await expect(wrong.verifyKey('MY_KEY')).rejects.toBeInstanceOf(SecretKeyError);
    await state.close();
  });
});
