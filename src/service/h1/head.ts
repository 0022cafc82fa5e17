// The head of an HTTP/1.1 response (status line and header fields) and what it says about the
// body's framing and the connection's reuse (RFC 9112 §4–§6, §9.3).

export type Headers = Record<string, string | string[] | undefined>;

/** How the body is delimited on the wire. */
export type Framing =
  { kind: 'chunked' } | { kind: 'length'; bytes: number } | { kind: 'close' } | { kind: 'none' };

export interface ResponseHead {
  status: number;
  headers: Headers;
  framing: Framing;
  /** The connection may carry another request once this body has been read whole. */
  keepAlive: boolean;
  /** Seconds from the server's `Keep-Alive: timeout=N`, when it said so. */
  keepAliveSeconds?: number;
}

/** The head is not valid HTTP/1.1; `rule` says which rule it broke. */
export class HeadError extends Error {
  constructor(readonly rule: string) {
    super(`response head: ${rule}`);
  }
}

/** Larger heads are refused (undici and Node default to 16 KB; we allow more). */
export const MAX_HEAD_BYTES = 64 * 1024;

const CRLFCRLF = Buffer.from('\r\n\r\n');
const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: [^\r\n]*)?$/;
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Index just past the blank line that ends a head in `bytes`, or -1 when it is not in yet. */
export function headEnd(bytes: Buffer): number {
  const at = bytes.indexOf(CRLFCRLF);
  return at < 0 ? -1 : at + 4;
}

/** Parses a complete head (ending in CRLFCRLF); `requestMethod` decides whether a body follows. */
export function parseHead(head: Buffer, requestMethod: string): ResponseHead {
  const lines = head.toString('latin1', 0, head.length - 4).split('\r\n');
  const match = STATUS_LINE.exec(lines[0] ?? '');
  if (!match) throw new HeadError('status line must be "HTTP/1.x NNN reason"');
  const minor = Number(match[1]);
  const status = Number(match[2]);
  // No prototype: a field named "constructor" or "__proto__" must be a plain entry.
  const headers = Object.create(null) as Headers;
  for (let index = 1; index < lines.length; index++) {
    const line = lines[index]!;
    const colon = line.indexOf(':');
    if (colon <= 0) throw new HeadError('header field must be "name: value"');
    const name = line.slice(0, colon);
    if (!FIELD_NAME.test(name)) {
      // The server's bytes, shortened: an error message is no place for 64 KB of garbage.
      const shown = JSON.stringify(name.slice(0, 40)) + (name.length > 40 ? '…' : '');
      throw new HeadError(`header name ${shown} has invalid characters`);
    }
    const key = name.toLowerCase();
    const value = trimOws(line.slice(colon + 1));
    const seen = headers[key];
    if (seen === undefined) headers[key] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else headers[key] = [seen, value];
  }
  const framing = framingOf(status, headers, requestMethod);
  const connection = tokens(headers.connection);
  // Both framings at once is how request smuggling starts: read this body, then close.
  const ambiguous =
    headers['transfer-encoding'] !== undefined && headers['content-length'] !== undefined;
  const keepAlive =
    framing.kind !== 'close' &&
    !ambiguous &&
    !connection.includes('close') &&
    (minor === 1 || connection.includes('keep-alive'));
  const result: ResponseHead = { status, headers, framing, keepAlive };
  const timeout = /(?:^|,)\s*timeout=(\d+)/i.exec(joined(headers['keep-alive']));
  if (timeout) result.keepAliveSeconds = Number(timeout[1]);
  return result;
}

function framingOf(status: number, headers: Headers, requestMethod: string): Framing {
  if (requestMethod === 'HEAD' || status === 204 || status === 304 || status < 200) {
    return { kind: 'none' };
  }
  const codings = tokens(headers['transfer-encoding']);
  if (codings.length > 0) {
    // Only "chunked" last delimits the body; anything else runs until the connection closes.
    return codings.at(-1) === 'chunked' ? { kind: 'chunked' } : { kind: 'close' };
  }
  const length = headers['content-length'];
  if (length === undefined) return { kind: 'close' };
  const values = new Set(
    joined(length)
      .split(',')
      .map((value) => value.trim()),
  );
  if (values.size !== 1) throw new HeadError('content-length values disagree');
  const [value] = values;
  if (!/^\d{1,15}$/.test(value!)) throw new HeadError('content-length must be a decimal number');
  return { kind: 'length', bytes: Number(value) };
}

/** Strips SP and HTAB only (RFC 9110 OWS); String#trim would also eat bytes such as 0xA0. */
function trimOws(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === ' ' || text[start] === '\t')) start++;
  while (end > start && (text[end - 1] === ' ' || text[end - 1] === '\t')) end--;
  return text.slice(start, end);
}

function joined(value: string | string[] | undefined): string {
  if (value === undefined) return '';
  return Array.isArray(value) ? value.join(',') : value;
}

/** A comma-separated header as lower-case tokens. */
function tokens(value: string | string[] | undefined): string[] {
  return joined(value)
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token !== '');
}
