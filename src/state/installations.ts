// Platform installations made through OAuth (one per Slack workspace, or per Enterprise Grid
// org installed org-wide), encrypted at rest. The platform's installation object is kept as
// opaque JSON: this layer knows no chat SDK, the adapter decides the keys and what is inside.
// Every value is sealed with the store key as additional data (secret-box.ts).
import type { Keyv } from 'keyv';
import { SealedValueError, SecretBox, SecretKeyError } from './secret-box.js';
import type { SealedMap } from './types.js';

interface InstallationRecord {
  /** ISO timestamp of when it was stored. */
  savedAt: string;
  /** The platform's own installation object (tokens inside), as JSON. */
  installation: unknown;
}

/** A record's key must be "platform:…", e.g. "slack:team:T123" or "slack:enterprise:E1". */
function checkKey(key: string): void {
  if (typeof key !== 'string' || !/^[a-z]+:\S+$/.test(key)) {
    throw new Error(`installation key "${String(key)}": must be "platform:id", no spaces`);
  }
}

/** Written once by the first key and opened at every start: a wrong key is caught there. */
const KEY_CHECK = '__key-check';
const KEY_CHECK_TEXT = 'chatbridge secret key check';

export class EncryptedInstallations {
  private readonly box: SecretBox;

  constructor(
    private readonly map: SealedMap,
    key: Buffer,
    private readonly now: () => number = Date.now,
  ) {
    this.box = new SecretBox(key);
  }

  /**
   * Resolves when the key opens what earlier starts stored (or nothing is stored yet: the key
   * check is written now). Rejects with a SecretKeyError naming `variable` otherwise.
   */
  async verifyKey(variable: string): Promise<void> {
    const sealed = await this.map.get(KEY_CHECK);
    if (sealed === undefined) {
      await this.map.set(KEY_CHECK, this.box.seal(KEY_CHECK_TEXT, KEY_CHECK));
      return;
    }
    try {
      if (this.box.open(sealed, KEY_CHECK) === KEY_CHECK_TEXT) return;
    } catch (error) {
      if (!(error instanceof SealedValueError)) throw error;
    }
    throw new SecretKeyError(
      `${variable}: is not the key the stored installations were encrypted with; ` +
        'start with the original key (or empty the store and install the app again)',
    );
  }

  async save(key: string, installation: unknown): Promise<void> {
    checkKey(key);
    const record: InstallationRecord = {
      savedAt: new Date(this.now()).toISOString(),
      installation,
    };
    await this.map.set(key, this.box.seal(JSON.stringify(record), key));
  }

  /** The record, undefined when none; a SealedValueError when it does not open. */
  async fetch(key: string): Promise<InstallationRecord | undefined> {
    checkKey(key);
    const sealed = await this.map.get(key);
    if (sealed === undefined) return undefined;
    return JSON.parse(this.box.open(sealed, key)) as InstallationRecord;
  }

  async delete(key: string): Promise<void> {
    checkKey(key);
    await this.map.delete(key);
  }
}

/** The store's namespace of sealed values, as given. */
export class KeyvSealedMap implements SealedMap {
  constructor(private readonly space: Keyv<string>) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.space.get(key)) ?? undefined;
  }

  async set(key: string, sealed: string): Promise<void> {
    if (typeof sealed !== 'string' || sealed === '') throw new Error('sealed: must be text');
    await this.space.set(key, sealed);
  }

  async delete(key: string): Promise<void> {
    await this.space.delete(key);
  }
}
