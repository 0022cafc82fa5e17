// A chat-completions endpoint that takes the request and never answers a byte (not even the
// headers), to show that a configured first-byte timeout is what ends the wait.
import { expect } from 'vitest';
import type { ServiceClient } from '../../src/service/api.js';
import { isServiceError } from '../../src/service/index.js';
import { startSite, type Site } from './fixtures.js';

export interface SilentLlm {
  /** Base URL to configure, ending in /v1. */
  url: string;
  /** Settles when the model has been asked: the request body has been read. */
  asked: Promise<void>;
  /** Settles when the caller gave up and closed the connection. */
  abandoned: Promise<void>;
  close(): Promise<void>;
}

export async function startSilentLlm(): Promise<SilentLlm> {
  let onAsked!: () => void;
  let onAbandoned!: () => void;
  const asked = new Promise<void>((resolve) => (onAsked = resolve));
  const abandoned = new Promise<void>((resolve) => (onAbandoned = resolve));
  const site: Site = await startSite({
    '/v1/chat/completions': (req, res) => {
      res.on('close', onAbandoned);
      req.resume();
      req.on('end', onAsked);
    },
  });
  return { url: `${site.url}/v1`, asked, abandoned, close: () => site.close() };
}

/**
 * Asks a question that `llm` is to answer and proves the service gave up after `ms`: the stream
 * is refused with 502, the model's connection is closed, and the log says why.
 * Returns the session, so a caller can check what was stored.
 */
export async function expectModelGivenUp(
  client: ServiceClient,
  llm: SilentLlm,
  logLines: string[],
  ms: number,
): Promise<string> {
  const chatbot = await client.createChatbot({ name: 'Timeouts' });
  await client.addQaSource(chatbot.uuid, { question: 'Sky?', answer: 'The sky is blue.' });
  const session = await client.createSession(chatbot.uuid);
  const answer = client.streamMessage(session.uuid, { query: 'What colour is the sky?' });
  await llm.asked;
  // The default (30 s) would outlast the test's own timeout: only the configured one ends it.
  await expect(answer).rejects.toSatisfy((e) => isServiceError(e) && e.status === 502);
  await llm.abandoned;
  expect(logLines.join('')).toContain(`language model sent nothing within ${ms} ms`);
  return session.uuid;
}
