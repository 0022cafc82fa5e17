// Encryption at rest for secrets kept in the store (OAuth bot tokens): AES-256-GCM, a random
// 96-bit IV per value, the value's key in the store bound in as additional data, so a sealed
// value copied under another key does not open. The key comes from the environment
// (CHATBRIDGE_SECRET_KEY): 32 bytes, written as base64 or hex.
import { CodedError, ErrorCode, type CodedErrorOptions } from '../errors.js';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Sealed values start with this, so a format change can be told apart later. */
const VERSION = 'v1';

const SECRET_KEY_RULE =
  'must be 32 random bytes written as base64 (44 characters) or hex (64 characters), ' +
  'e.g. from `openssl rand -base64 32`';

/** The secret key is missing or malformed; the message names the variable and the rule. */
export class SecretKeyError extends CodedError {
  constructor(message: string) {
    super(ErrorCode.SecretKeyInvalid, message);
  }
}

/** A sealed value did not open: written with another key, or altered. */
export class SealedValueError extends CodedError {
  constructor(message: string, options: CodedErrorOptions = {}) {
    super(ErrorCode.SealedValueUnreadable, message, options);
  }
}

/** The 32-byte key in `raw` (base64 or hex), or a SecretKeyError naming `variable`. */
export function parseSecretKey(raw: string | undefined, variable: string): Buffer {
  const text = raw?.trim() ?? '';
  if (text === '') throw new SecretKeyError(`${variable}: required; it ${SECRET_KEY_RULE}`);
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(text)) key = Buffer.from(text, 'hex');
  else if (/^[A-Za-z0-9+/]{43}=?$/.test(text) || /^[A-Za-z0-9_-]{43}=?$/.test(text)) {
    key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  }
  if (key?.length !== 32) {
    throw new SecretKeyError(`${variable}: ${SECRET_KEY_RULE}`);
  }
  return key;
}

export class SecretBox {
  private readonly key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new SecretKeyError('secret key: must be 32 bytes');
    this.key = Buffer.from(key);
  }

  /** "v1:" + base64(iv | tag | ciphertext); `label` (the store key) is authenticated too. */
  seal(plaintext: string, label: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv);
    cipher.setAAD(Buffer.from(label, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  /** The plaintext, or a SealedValueError (wrong key, altered, not sealed by this format). */
  open(sealed: string, label: string): string {
    const [version, payload] = sealed.split(':', 2);
    if (version !== VERSION || payload === undefined) {
      throw new SealedValueError(`stored value "${label}" is not in the sealed format`);
    }
    const bytes = Buffer.from(payload, 'base64');
    if (bytes.length < IV_BYTES + TAG_BYTES) {
      throw new SealedValueError(`stored value "${label}" is truncated`);
    }
    try {
      const decipher = createDecipheriv(ALGORITHM, this.key, bytes.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(label, 'utf8'));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const body = bytes.subarray(IV_BYTES + TAG_BYTES);
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedValueError(
        `stored value "${label}" does not open with this key (written with another key, or altered)`,
      );
    }
  }
}
