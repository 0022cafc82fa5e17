// A request written byte for byte on a plain socket: for bodies no HTTP client would send
// (no boundary, cut off, never finished). The request asks to close the connection, so the
// answer is complete when the server closes it.
import { connect } from 'node:net';
import { KEY_A } from './helpers.js';

export interface RawHttpAnswer {
  status: number;
  headers: Record<string, string>;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface RawHttpRequest {
  port: number;
  path: string;
  contentType: string;
  body: string;
  /** Content-Length to announce; default the body's length. */
  contentLength?: number;
  /** Half-close after writing (the body ends there); false keeps the socket open. */
  end?: boolean;
}

export function rawHttp(req: RawHttpRequest): Promise<RawHttpAnswer> {
  const length = req.contentLength ?? Buffer.byteLength(req.body);
  const head =
    `POST ${req.path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n` +
    `authorization: Bearer ${KEY_A}\r\ncontent-type: ${req.contentType}\r\n` +
    `content-length: ${length}\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(req.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return reject(new Error(`no answer before the connection closed: ${text}`));
      const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = text.slice(split + 4);
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, json });
    });
    socket.write(head + req.body);
    if (req.end !== false) socket.end();
  });
}

/** A multipart form body with boundary "X" from parts written as given. */
export function form(...parts: string[]): string {
  return parts.map((part) => `--X\r\n${part}\r\n`).join('') + '--X--\r\n';
}

export const field = (name: string, value: string): string =>
  `content-disposition: form-data; name="${name}"\r\n\r\n${value}`;

export const filePart = (content: string, fileName = 'notes.txt'): string =>
  `content-disposition: form-data; name="file"; filename="${fileName}"\r\n` +
  `content-type: text/plain\r\n\r\n${content}`;
