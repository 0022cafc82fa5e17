// Identifiers and timestamps in the shapes the real service uses.
import { randomBytes } from 'node:crypto';

/** 32 lowercase hex characters, like the identifiers the hosted service hands out. */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

/** ISO 8601 with milliseconds, for chatbots, data sources, tags, sessions and messages. */
export function isoTimestamp(ms: number): string {
  return new Date(ms).toISOString();
}

/** Agents carry `YYYY-MM-DDThh:mm:ssZ`: whole seconds, no milliseconds. */
export function agentTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
