// Files named by a path (the terminal chat, `chatbridge admin`), read only within the upload
// limit that Slack and Discord attachments also obey, so every surface refuses the same files.
import { CodedError, ErrorCode } from '../errors.js';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { DEFAULT_MAX_UPLOAD_BYTES } from '../settings/index.js';
import type { AdminFile } from './types.js';

export { DEFAULT_MAX_UPLOAD_BYTES };

/** A file above the upload limit; its message states the rule. */
export class FileTooLarge extends CodedError {
  constructor(message: string) {
    super(ErrorCode.AdminFileTooLarge, message);
  }
}

export function localFileReader(
  maxBytes = DEFAULT_MAX_UPLOAD_BYTES,
): (path: string) => Promise<AdminFile> {
  return async (path) => {
    const { size } = await stat(path);
    if (size > maxBytes) {
      throw new FileTooLarge(
        `must be at most ${maxBytes} bytes (CHATBRIDGE_MAX_UPLOAD_BYTES); "${basename(path)}" has ${size}`,
      );
    }
    return { name: basename(path), bytes: new Uint8Array(await readFile(path)) };
  };
}

/** Writes a file a command made (an export) at a path relative to `cwd`; gives the full path. */
export function localFileWriter(
  cwd = process.cwd(),
): (path: string, bytes: Uint8Array) => Promise<string> {
  return async (path, bytes) => {
    const full = resolve(cwd, path);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, bytes);
    return full;
  };
}
