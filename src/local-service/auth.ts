// Bearer-key authentication. Each configured key is its own user, identified in storage by a
// hash of the key (the key itself is never stored or logged). Keys are compared in constant
// time: both sides are hashed to equal length and every configured key is checked.
import { createHash, timingSafeEqual } from 'node:crypto';
import { HttpError } from './http-errors.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export class KeyRing {
  private readonly digests: Buffer[];

  constructor(keys: readonly string[]) {
    const usable = keys.map((k) => k.trim()).filter((k) => k !== '');
    if (usable.length === 0) throw new Error('apiKeys: at least one API key is required');
    this.digests = usable.map(digest);
  }

  /** The owner id of the request's key; 401 when the header is missing or the key unknown. */
  authenticate(header: string | undefined): string {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
    if (!match) {
      throw new HttpError(401, 'unauthorized', 'Authorization: Bearer <API key> is required');
    }
    const given = digest(match[1] as string);
    let found: Buffer | undefined;
    for (const known of this.digests) {
      // No early exit: the time taken does not depend on which key matched.
      if (timingSafeEqual(given, known)) found = known;
    }
    if (!found) throw new HttpError(401, 'unauthorized', 'unknown API key');
    return found.toString('hex').slice(0, 32);
  }
}
