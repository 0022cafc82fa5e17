// Bolt's HTTP receiver with two checks in front of it, made with Bolt's own verification:
// - the five-minute window holds both ways: Bolt refuses a request timestamped too long ago,
//   and this refuses one timestamped more than five minutes ahead (401), which a captured
//   request replayed against a clock running behind would otherwise pass;
// - a correctly signed body with fields of the wrong types gets 400 (payload-shapes.ts), never
//   a 500 that Slack would retry, nor a listener tripping over it.
// Everything else (signature, body size, parsing, routing, OAuth) is Bolt's as before.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  HTTPModuleFunctions,
  HTTPReceiver,
  type BufferedIncomingMessage,
  type HTTPReceiverOptions,
} from '@slack/bolt';
import type { Logger } from '../../src/log.js';
import { malformedReason } from './payload-shapes.js';

export const EVENTS_PATH = '/slack/events';
/** Slack's replay window, both ways. */
export const TIMESTAMP_WINDOW_MS = 5 * 60_000;

export interface GuardedReceiverOptions extends Omit<HTTPReceiverOptions, 'bodyLimit'> {
  signingSecret: string;
  /** Our logger (the receiver's own `logger` is Bolt's adapter of it). */
  log: Logger;
}

export function createGuardedReceiver(options: GuardedReceiverOptions): HTTPReceiver {
  // The wall clock, as Bolt's own staleness check uses: signatures are about real time.
  const { log, ...receiverOptions } = options;
  const receiver = new HTTPReceiver({
    ...receiverOptions,
    endpoints: EVENTS_PATH,
    processBeforeResponse: true,
  });
  const bolt = receiver.requestListener;
  const bodyLimit = HTTPModuleFunctions.defaultBodyLimit;
  receiver.requestListener = (req, res) => {
    if (req.method !== 'POST' || new URL(req.url ?? '/', 'http://x').pathname !== EVENTS_PATH) {
      bolt(req, res);
      return;
    }
    void refusal(req, options.signingSecret, bodyLimit).then(
      (refused) => {
        if (!refused) return bolt(req, res);
        log.warn({ status: refused.status, reason: refused.reason }, 'slack: request refused');
        res.writeHead(refused.status).end();
      },
      // Could not even be read or verified: Bolt answers it (401, 413) the way it always has.
      () => bolt(req, res),
    );
  };
  return receiver;
}

async function refusal(
  req: IncomingMessage,
  signingSecret: string,
  bodyLimit: number,
): Promise<{ status: 400 | 401; reason: string } | undefined> {
  // Buffers the body onto the request (Bolt reuses it) and checks the signature and staleness.
  const buffered: BufferedIncomingMessage = await HTTPModuleFunctions.parseAndVerifyHTTPRequest(
    { enabled: true, signingSecret, bodyLimit },
    req,
    undefined as unknown as ServerResponse,
  );
  const timestampSec = Number(req.headers['x-slack-request-timestamp']);
  if (timestampSec * 1000 - Date.now() > TIMESTAMP_WINDOW_MS) {
    return { status: 401, reason: 'timestamp in the future' };
  }
  let body: unknown;
  try {
    body = HTTPModuleFunctions.parseHTTPRequestBody(buffered);
  } catch {
    return undefined; // Bolt answers 400 for a body it cannot parse
  }
  const reason = malformedReason(body);
  return reason ? { status: 400, reason: `malformed payload at ${reason}` } : undefined;
}
