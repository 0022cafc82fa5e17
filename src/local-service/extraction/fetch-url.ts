// Reads a web address into text for a URL data source: undici, http/https only, one deadline
// over the whole fetch, a size cap, redirects followed by hand (bounded, every hop checked).
// With refusePrivate, private/loopback/link-local addresses are refused after DNS resolution:
// the socket connects to the very address that was checked, so DNS rebinding cannot swap it.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { isPrivateAddress } from './address-guard.js';
import { extractText, fileKind, type ExtractOptions, type FileKind } from './extract.js';
import { FetchFailedError } from './errors.js';

export interface FetchUrlOptions {
  /** Deadline for the whole fetch, redirects and body included. Default 15 000 ms. */
  timeoutMs?: number;
  /** Largest body read. Default 5 MB. */
  maxBytes?: number;
  /** Redirects followed at most. Default 5. */
  maxRedirects?: number;
  /** Refuse private, loopback, link-local (…) addresses. Default false. */
  refusePrivate?: boolean;
  /** A dispatcher to use instead of a fresh Agent (not combinable with refusePrivate). */
  dispatcher?: Dispatcher;
  /** DNS resolution, for tests; default dns.lookup with all: true. */
  resolve?: (hostname: string) => Promise<LookupAddress[]>;
  /** With refusePrivate: which addresses are refused. Default isPrivateAddress. */
  isRefused?: (address: string) => boolean;
  /** Where and within what limits the page is converted to text (default: in this thread). */
  extract?: ExtractOptions;
}

export interface FetchedText {
  text: string;
  title?: string;
  /** The address the text came from, after redirects. */
  finalUrl: string;
  /** The response's media type, lowercased, without parameters ("" when absent). */
  contentType: string;
  /** Bytes of the body as downloaded (before any charset conversion or extraction). */
  bytes: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const FILE_NAME_FOR: Record<FileKind, string> = {
  text: 'page.txt',
  markdown: 'page.md',
  csv: 'page.csv',
  json: 'page.json',
  html: 'page.html',
  pdf: 'page.pdf',
  docx: 'page.docx',
};

function defaultResolve(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });
}

type LookupCallback = (
  error: Error | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A net.connect lookup that resolves, refuses private answers, and connects to what it checked. */
function guardedLookup(
  resolve: (hostname: string) => Promise<LookupAddress[]>,
  isRefused: (address: string) => boolean,
  refused: (e: FetchFailedError) => void,
) {
  return (
    hostname: string,
    options: { family?: number | string; all?: boolean },
    callback: LookupCallback,
  ) => {
    resolve(hostname)
      .then((all) => {
        const family =
          options.family === 'IPv4'
            ? 4
            : options.family === 'IPv6'
              ? 6
              : Number(options.family ?? 0);
        const addresses =
          family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
        const bad = addresses.find((a) => isRefused(a.address));
        if (bad !== undefined) {
          const error = new FetchFailedError(
            `refused: ${hostname} resolves to the private address ${bad.address}`,
          );
          refused(error);
          throw error;
        }
        const first = addresses[0];
        if (first === undefined) throw new Error(`no address found for ${hostname}`);
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      })
      .catch((error: Error) => callback(error, ''));
  };
}

/** A URL as shown in messages: without any user:password. */
function shown(url: URL): string {
  if (url.username === '' && url.password === '') return url.href;
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  return copy.href;
}

function checkUrl(raw: string, isRefused: ((address: string) => boolean) | undefined): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchFailedError(`not a valid URL: "${raw.replace(/\/\/[^/@]*@/, '//')}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchFailedError(
      `only http and https URLs can be fetched, not ${url.protocol.slice(0, -1)}`,
    );
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isRefused !== undefined && isIP(host) !== 0 && isRefused(host)) {
    throw new FetchFailedError(`refused: ${host} is a private address`);
  }
  return url;
}

/** Stops reading a body we do not want (its abort error is expected, not a crash). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

async function readCapped(
  body: Dispatcher.ResponseData['body'],
  declared: number,
  maxBytes: number,
): Promise<Uint8Array> {
  const tooBig = () => new FetchFailedError(`response is larger than the ${maxBytes}-byte limit`);
  if (declared > maxBytes) throw tooBig();
  const parts: Buffer[] = [];
  let total = 0;
  for await (const part of body as AsyncIterable<Buffer>) {
    total += part.length;
    if (total > maxBytes) {
      discard(body);
      throw tooBig();
    }
    parts.push(part);
  }
  return Buffer.concat(parts, total);
}

/** Text bytes in a declared charset → UTF-8 bytes (extractText reads UTF-8). */
function toUtf8(bytes: Uint8Array, charset: string | undefined): Uint8Array {
  if (charset === undefined || /^utf-?8$/i.test(charset)) return bytes;
  try {
    return new TextEncoder().encode(new TextDecoder(charset).decode(bytes));
  } catch {
    return bytes; // unknown label: read as UTF-8
  }
}

async function toText(
  bytes: Uint8Array,
  url: URL,
  header: string,
  extract: ExtractOptions | undefined,
): Promise<{ text: string; title?: string }> {
  const [mime = '', ...params] = header.split(';').map((p) => p.trim());
  const charset = params
    .find((p) => /^charset=/i.test(p))
    ?.slice(8)
    .replace(/"/g, '');
  const generic = mime === '' || mime === 'application/octet-stream';
  const lastSegment = url.pathname.split('/').pop() ?? '';
  const kind = generic ? fileKind(lastSegment) : fileKind('', mime);
  if (kind === undefined)
    throw new FetchFailedError(`unsupported content type "${mime || 'none'}" at ${shown(url)}`);
  const text = kind === 'pdf' || kind === 'docx' ? bytes : toUtf8(bytes, charset);
  try {
    return await extractText({ bytes: text, fileName: FILE_NAME_FOR[kind] }, extract);
  } catch (error) {
    throw new FetchFailedError(`could not read ${shown(url)}: ${(error as Error).message}`);
  }
}

export async function fetchUrlText(
  rawUrl: string,
  options: FetchUrlOptions = {},
): Promise<FetchedText> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxBytes = options.maxBytes ?? 5 * 1024 * 1024;
  const maxRedirects = options.maxRedirects ?? 5;
  const refusePrivate = options.refusePrivate ?? false;
  if (refusePrivate && options.dispatcher !== undefined) {
    throw new Error('fetchUrlText: refusePrivate cannot be combined with a custom dispatcher');
  }
  const isRefused = refusePrivate ? (options.isRefused ?? isPrivateAddress) : undefined;
  let refusal: FetchFailedError | undefined;
  const lookup = guardedLookup(
    options.resolve ?? defaultResolve,
    isRefused ?? (() => false),
    (e) => (refusal = e),
  );
  const agent =
    options.dispatcher ??
    new Agent(refusePrivate || options.resolve ? { connect: { lookup } } : {});
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let url = checkUrl(rawUrl, isRefused);
  try {
    for (let hop = 0; ; hop++) {
      const response = await request(url, {
        dispatcher: agent,
        signal: controller.signal,
        headers: {
          'user-agent': 'chatbridge-local-service/1 (knowledge fetcher)',
          accept:
            'text/html,application/xhtml+xml,text/plain,text/markdown,application/json,application/pdf;q=0.9,*/*;q=0.1',
        },
      });
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode)) {
        discard(response.body);
        if (typeof location !== 'string')
          throw new FetchFailedError(`HTTP ${response.statusCode} without a Location header`);
        if (hop >= maxRedirects)
          throw new FetchFailedError(`too many redirects (more than ${maxRedirects})`);
        url = checkUrl(new URL(location, url).href, isRefused);
        continue;
      }
      if (response.statusCode < 200 || response.statusCode > 299) {
        discard(response.body);
        throw new FetchFailedError(`HTTP ${response.statusCode}`);
      }
      const header = String(response.headers['content-type'] ?? '');
      const bytes = await readCapped(
        response.body,
        Number(response.headers['content-length'] ?? 0),
        maxBytes,
      );
      const page = await toText(bytes, url, header, options.extract);
      return {
        ...page,
        finalUrl: url.href,
        bytes: bytes.byteLength,
        contentType: header.split(';')[0]!.trim().toLowerCase(),
      };
    }
  } catch (error) {
    if (controller.signal.aborted) throw new FetchFailedError(`timed out after ${timeoutMs} ms`);
    if (refusal !== undefined) throw refusal;
    if (error instanceof FetchFailedError) throw error;
    throw new FetchFailedError(`could not fetch ${shown(url)}: ${(error as Error).message}`);
  } finally {
    clearTimeout(timer);
    if (agent !== options.dispatcher) await (agent as Agent).destroy();
  }
}
