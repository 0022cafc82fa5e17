// Downloads a file a user shared with the app. The bot token goes only to Slack's file hosts (or
// the configured API host, e.g. a test fake or GovSlack proxy), never to an address a payload
// names elsewhere; redirects are followed only within those hosts. A login page served instead
// of the file (the app lacks files:read) is recognised and explained.

import { CodedError, ErrorCode } from '../../src/errors.js';
import { readCapped } from '../shared/read-capped.js';
import type { FetchLike } from '../shared/outbound.js';

export const SLACK_FILE_HOSTS = ['files.slack.com', 'files.slack-gov.com'];

export class SlackFileError extends CodedError {
  constructor(
    readonly reason: 'host' | 'login_page' | 'too_large' | 'http',
    message: string,
  ) {
    super(ErrorCode.SlackFileRefused, message);
    this.name = 'SlackFileError';
  }
}

export interface DownloadOptions {
  botToken: string;
  /** The configured Web API base URL: its origin is trusted as well. */
  apiUrl: string;
  maxBytes: number;
  fetch?: FetchLike;
  /** The whole download, redirects included; 60 s by default. */
  timeoutMs?: number;
}

export interface DownloadedFile {
  bytes: Uint8Array;
  contentType?: string;
}

export function isSlackFileUrl(url: string, apiUrl: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.username || parsed.password) return false;
  if (parsed.protocol === 'https:' && SLACK_FILE_HOSTS.includes(parsed.hostname)) return true;
  return parsed.origin === new URL(apiUrl).origin;
}

const MISSING_SCOPE =
  'Slack sent a login page instead of the file: the app is missing the files:read scope. ' +
  'Add it under OAuth & Permissions (or paste the manifest again) and reinstall the app.';

function looksLikeHtml(head: Uint8Array): boolean {
  const text = new TextDecoder().decode(head.subarray(0, 256)).trimStart().toLowerCase();
  return text.startsWith('<!doctype html') || text.startsWith('<html');
}

const MB = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export async function downloadSlackFile(
  url: string,
  options: DownloadOptions,
): Promise<DownloadedFile> {
  // As Discord's attachments: a download that stalls (a hung proxy or host) ends as an error.
  const timeoutMs = options.timeoutMs ?? 60_000;
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    return await download(url, options, signal);
  } catch (error) {
    if (!signal.aborted || error instanceof SlackFileError) throw error;
    throw new SlackFileError(
      'http',
      `Downloading the file from Slack did not finish within ${timeoutMs / 1000} s.`,
    );
  }
}

async function download(
  url: string,
  options: DownloadOptions,
  signal: AbortSignal,
): Promise<DownloadedFile> {
  const doFetch = options.fetch ?? fetch;
  let current = url;
  for (let hop = 0; hop < 4; hop++) {
    if (!isSlackFileUrl(current, options.apiUrl)) {
      throw new SlackFileError(
        'host',
        'The file address is not on a Slack file host; not downloading it.',
      );
    }
    const response = await doFetch(current, {
      headers: { Authorization: `Bearer ${options.botToken}` },
      redirect: 'manual',
      signal,
    });
    if (response.status >= 300 && response.status < 400) {
      const location = response.headers.get('location');
      await response.body?.cancel();
      if (!location)
        throw new SlackFileError('http', `Slack answered ${response.status} without a location.`);
      current = new URL(location, current).href;
      if (!isSlackFileUrl(current, options.apiUrl)) {
        // Slack sends users without access to its sign-in page.
        throw new SlackFileError('login_page', MISSING_SCOPE);
      }
      continue;
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new SlackFileError(
        'http',
        `Downloading the file from Slack failed (HTTP ${response.status}).`,
      );
    }
    const contentType = response.headers.get('content-type') ?? undefined;
    if (contentType?.toLowerCase().startsWith('text/html')) {
      await response.body?.cancel();
      throw new SlackFileError('login_page', MISSING_SCOPE);
    }
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      await response.body?.cancel();
      throw new SlackFileError(
        'too_large',
        `The file is ${MB(declared)}; the limit is ${MB(options.maxBytes)}.`,
      );
    }
    const bytes = await readCapped(
      response.body,
      options.maxBytes,
      () =>
        new SlackFileError(
          'too_large',
          `The file is larger than the limit of ${MB(options.maxBytes)}.`,
        ),
    );
    if (looksLikeHtml(bytes)) throw new SlackFileError('login_page', MISSING_SCOPE);
    return { bytes, ...(contentType ? { contentType } : {}) };
  }
  throw new SlackFileError('http', 'Too many redirects while downloading the file from Slack.');
}
