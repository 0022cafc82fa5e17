// Bolt's logger interface over our pino logger, so Bolt's lines get the same redaction.
import { LogLevel, type Logger as BoltLogger } from '@slack/logger';
import { maskSecrets, type Logger } from '../../src/log.js';

function line(parts: unknown[]): string {
  return maskSecrets(
    parts
      .map((part) =>
        typeof part === 'string'
          ? part
          : part instanceof Error
            ? part.message
            : JSON.stringify(part),
      )
      .join(' '),
  );
}

export function boltLogger(logger: Logger): BoltLogger {
  let level = LogLevel.INFO;
  return {
    debug: (...parts: unknown[]) => logger.debug({ bolt: true }, line(parts)),
    info: (...parts: unknown[]) => logger.info({ bolt: true }, line(parts)),
    warn: (...parts: unknown[]) => logger.warn({ bolt: true }, line(parts)),
    error: (...parts: unknown[]) => logger.error({ bolt: true }, line(parts)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
