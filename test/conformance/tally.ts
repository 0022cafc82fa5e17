// How many requests the conformance checks saw, for a report: with CHATBRIDGE_CONFORMANCE_TALLY
// set to a file, each fake's close appends one line, `platform requests violations`.
import { appendFileSync } from 'node:fs';

export function tally(platform: string, requests: number, problems: readonly string[]): void {
  const file = process.env.CHATBRIDGE_CONFORMANCE_TALLY;
  if (!file) return;
  appendFileSync(file, `${platform} ${requests} ${problems.length}\n`);
}
