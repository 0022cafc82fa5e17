// `chatbridge service`: runs the local service until SIGINT/SIGTERM. Every flag can also come
// from the environment (flags win). Prints one line with its address when ready; logs go to
// stderr; API keys are never printed.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../log.js';
import type { FaultOptions, LocalServiceOptions } from './options.js';
import { createServiceMetrics, SERVICE_DRAIN_MS } from './ops.js';
import { startLocalService } from './server.js';
import { untilStopAsked } from '../stop-signal.js';

export const SERVICE_USAGE = `Usage: chatbridge service [options]
  --port N                 port to listen on (default 8787; 0 = any free port)   CHATBRIDGE_SERVICE_PORT
  --host ADDR              address to listen on (default 127.0.0.1)              CHATBRIDGE_SERVICE_HOST
  --api-key KEY            an API key; repeat for more users (required)          CHATBRIDGE_SERVICE_API_KEYS (comma-separated)
  --store URL              sqlite://path (shared by processes) or memory://      CHATBRIDGE_SERVICE_STORE
  --data-dir DIR           folder of the default SQLite store (default ./data)   CHATBRIDGE_SERVICE_DATA_DIR
  --stream-delay-ms N      pause between streamed pieces (default 0)             CHATBRIDGE_SERVICE_STREAM_DELAY_MS
  --llm-url URL            OpenAI-compatible endpoint that writes answers        CHATBRIDGE_SERVICE_LLM_URL (key: LLM_API_KEY)
  --llm-model NAME         model for --llm-url                                   CHATBRIDGE_SERVICE_LLM_MODEL
  --llm-first-byte-timeout-ms N
                           longest wait for the first event (default 30000)      CHATBRIDGE_SERVICE_LLM_FIRST_BYTE_TIMEOUT_MS
  --llm-idle-timeout-ms N  longest silence mid-answer (default 60000)            CHATBRIDGE_SERVICE_LLM_IDLE_TIMEOUT_MS
  --refuse-private-urls    refuse URL sources on private/loopback addresses      CHATBRIDGE_SERVICE_REFUSE_PRIVATE_URLS=1
  --max-upload-bytes N     largest uploaded file (default 10485760)              CHATBRIDGE_SERVICE_MAX_UPLOAD_BYTES
  --extract-timeout-ms N   time one file's text extraction may take (default     CHATBRIDGE_SERVICE_EXTRACT_TIMEOUT_MS
                           20000); past it the file is refused
  --extract-memory-mb N    heap of each text-extraction worker (default 512)     CHATBRIDGE_SERVICE_EXTRACT_MEMORY_MB
  --fault-first-byte-delay-ms N, --fault-status N, --fault-cut-after N
                           fault injection on stream requests (off by default)   CHATBRIDGE_SERVICE_FAULT_…`;

const FLAGS = {
  port: { type: 'string' },
  host: { type: 'string' },
  'api-key': { type: 'string', multiple: true },
  store: { type: 'string' },
  'data-dir': { type: 'string' },
  'stream-delay-ms': { type: 'string' },
  'llm-url': { type: 'string' },
  'llm-model': { type: 'string' },
  'llm-first-byte-timeout-ms': { type: 'string' },
  'llm-idle-timeout-ms': { type: 'string' },
  'refuse-private-urls': { type: 'boolean' },
  'max-upload-bytes': { type: 'string' },
  'extract-timeout-ms': { type: 'string' },
  'extract-memory-mb': { type: 'string' },
  'fault-first-byte-delay-ms': { type: 'string' },
  'fault-status': { type: 'string' },
  'fault-cut-after': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

class UsageError extends Error {}

/** An hour: a model loading on slow hardware may be slow, but a timer must stay a timer. */
const LLM_TIMEOUT_MAX_MS = 3_600_000;

function wholeNumber(value: string | undefined, name: string, min: number, max: number) {
  if (value === undefined || value.trim() === '') return undefined;
  // Digits only: Number() alone would take "1e3", "0x10" or "1.0".
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`${name}: must be a whole number from ${min} to ${max}`);
  }
  return n;
}

const truthy = (value: string | undefined): boolean =>
  value !== undefined && /^(1|true|yes|on)$/i.test(value.trim());

/** Reads flags and environment into service options (throws UsageError with the field). */
export function serviceOptionsFrom(argv: string[], env: NodeJS.ProcessEnv): LocalServiceOptions {
  const { values } = parseArgs({
    args: argv,
    options: FLAGS,
    strict: true,
    allowPositionals: false,
  });
  const pick = (flag: keyof typeof FLAGS, envName: string): string | undefined => {
    const value = values[flag];
    return typeof value === 'string' ? value : env[envName];
  };
  /** A numeric option; an error names where the value came from, the flag or the variable. */
  const numberOption = (flag: keyof typeof FLAGS, envName: string, min: number, max: number) =>
    wholeNumber(
      pick(flag, envName),
      typeof values[flag] === 'string' ? `--${flag}` : envName,
      min,
      max,
    );
  const keys = values['api-key'] ?? (env.CHATBRIDGE_SERVICE_API_KEYS ?? '').split(',');
  const apiKeys = keys.map((k) => k.trim()).filter((k) => k !== '');
  if (apiKeys.length === 0) {
    throw new UsageError(
      '--api-key: at least one API key is required (or CHATBRIDGE_SERVICE_API_KEYS)',
    );
  }
  const dataDir = pick('data-dir', 'CHATBRIDGE_SERVICE_DATA_DIR') ?? 'data';
  const llmUrl = pick('llm-url', 'CHATBRIDGE_SERVICE_LLM_URL');
  const llmModel = pick('llm-model', 'CHATBRIDGE_SERVICE_LLM_MODEL');
  if (llmUrl !== undefined && llmModel === undefined) {
    throw new UsageError('--llm-model: is required with --llm-url');
  }
  // Checked even without --llm-url, so a typo is not silently ignored.
  const firstByteTimeoutMs = numberOption(
    'llm-first-byte-timeout-ms',
    'CHATBRIDGE_SERVICE_LLM_FIRST_BYTE_TIMEOUT_MS',
    1,
    LLM_TIMEOUT_MAX_MS,
  );
  const idleTimeoutMs = numberOption(
    'llm-idle-timeout-ms',
    'CHATBRIDGE_SERVICE_LLM_IDLE_TIMEOUT_MS',
    1,
    LLM_TIMEOUT_MAX_MS,
  );
  const faults: FaultOptions = {
    firstByteDelayMs: numberOption(
      'fault-first-byte-delay-ms',
      'CHATBRIDGE_SERVICE_FAULT_FIRST_BYTE_DELAY_MS',
      0,
      600_000,
    ),
    failStatus: numberOption('fault-status', 'CHATBRIDGE_SERVICE_FAULT_STATUS', 400, 599),
    cutAfterPieces: numberOption(
      'fault-cut-after',
      'CHATBRIDGE_SERVICE_FAULT_CUT_AFTER',
      0,
      1_000_000,
    ),
  };
  return {
    apiKeys,
    port: numberOption('port', 'CHATBRIDGE_SERVICE_PORT', 0, 65535) ?? 8787,
    host: pick('host', 'CHATBRIDGE_SERVICE_HOST') ?? '127.0.0.1',
    storeUrl:
      pick('store', 'CHATBRIDGE_SERVICE_STORE') ??
      `sqlite://${resolve(dataDir, 'local-service.sqlite')}`,
    streamDelayMs: numberOption('stream-delay-ms', 'CHATBRIDGE_SERVICE_STREAM_DELAY_MS', 0, 60_000),
    refusePrivateUrls:
      values['refuse-private-urls'] ?? truthy(env.CHATBRIDGE_SERVICE_REFUSE_PRIVATE_URLS),
    maxUploadBytes: numberOption(
      'max-upload-bytes',
      'CHATBRIDGE_SERVICE_MAX_UPLOAD_BYTES',
      1,
      2 ** 31,
    ),
    extraction: {
      timeoutMs: numberOption(
        'extract-timeout-ms',
        'CHATBRIDGE_SERVICE_EXTRACT_TIMEOUT_MS',
        100,
        LLM_TIMEOUT_MAX_MS,
      ),
      // Below 128 MB a worker cannot load pdfjs's parser to read even a one-line PDF.
      memoryMb: numberOption(
        'extract-memory-mb',
        'CHATBRIDGE_SERVICE_EXTRACT_MEMORY_MB',
        128,
        65_536,
      ),
    },
    llm:
      llmUrl === undefined
        ? undefined
        : {
            url: llmUrl,
            model: llmModel as string,
            apiKey: env.LLM_API_KEY,
            firstByteTimeoutMs,
            idleTimeoutMs,
          },
    faults,
  };
}

export interface ServiceCommandIo {
  /** Where the ready line and usage go. Default process.stdout. */
  out?: (line: string) => void;
  err?: (line: string) => void;
  /** Stops the service when aborted, besides SIGINT/SIGTERM. */
  signal?: AbortSignal;
}

/** Runs until SIGINT/SIGTERM (or io.signal); resolves with the exit code. */
export async function runServiceCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  io: ServiceCommandIo = {},
): Promise<number> {
  const out = io.out ?? ((line: string) => process.stdout.write(`${line}\n`));
  const err = io.err ?? ((line: string) => process.stderr.write(`${line}\n`));
  let options: LocalServiceOptions;
  try {
    if (argv.includes('--help') || argv.includes('-h')) {
      out(SERVICE_USAGE);
      return 0;
    }
    options = serviceOptionsFrom(argv, env);
  } catch (error) {
    err(`chatbridge service: ${(error as Error).message}`);
    err(SERVICE_USAGE);
    return 2;
  }
  // The keys have no recognisable shape: mask their exact values in every line.
  const secrets = [...options.apiKeys, ...(options.llm?.apiKey ? [options.llm.apiKey] : [])];
  const logger = createLogger({ name: 'chatbridge-service', secrets });
  let service;
  try {
    const metrics = createServiceMetrics({ processMetrics: true });
    service = await startLocalService({ ...options, logger, metrics });
  } catch (error) {
    err(`chatbridge service: could not start: ${(error as Error).message}`);
    return 1;
  }
  const keys = options.apiKeys.length;
  out(
    `chatbridge service listening on ${service.url} (store ${service.store}, ${keys} API key${keys === 1 ? '' : 's'})`,
  );

  await untilStopAsked(io.signal);
  // Not ready first (the balancer stops sending), then answers in progress get time to end.
  await service.ops.drain(SERVICE_DRAIN_MS);
  await service.close();
  logger.info('chatbridge service stopped');
  return 0;
}
