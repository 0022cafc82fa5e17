// A chat-completions endpoint that takes the request and never answers a byte (not even the
// headers), to show that a configured first-byte timeout is what ends the wait.
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
