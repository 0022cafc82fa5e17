// `chatbridge service`: runs the local service until SIGINT/SIGTERM. Every flag can also come
// from the environment (flags win); flags, variables, rules and the usage text come from the
// settings table (settings/). Prints one line with its address when ready; logs go to
// stderr; API keys are never printed.
import { resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CodedError, ErrorCode } from '../errors.js';
import { createLogger } from '../log.js';
import type { FaultOptions, LocalServiceOptions } from './options.js';
import { createServiceMetrics, SERVICE_DRAIN_MS } from './ops.js';
import { startLocalService } from './server.js';
import {
  rawSetting,
  setting,
  settingSchema,
  settingsOf,
  type DeprecationWarn,
  type Setting,
  type SettingValue,
} from '../settings/index.js';
import { untilStopAsked } from '../stop-signal.js';

const SERVICE_SETTINGS = settingsOf('service');
// The service's own flags first, then the ones it shares with the embedded service (LLM_*).
const FLAG_SETTINGS = [
  ...SERVICE_SETTINGS.filter((s) => s.flag !== undefined && s.use[0] === 'service'),
  ...SERVICE_SETTINGS.filter((s) => s.flag !== undefined && s.use[0] !== 'service'),
];

/** The flags, from the settings table: one per setting that has one, and --help. */
const FLAGS: ParseArgsConfig['options'] = {
  ...Object.fromEntries(
    FLAG_SETTINGS.map((s) => [
      s.flag!,
      s.type === 'switch'
        ? { type: 'boolean' as const }
        : { type: 'string' as const, ...(s.repeat ? { multiple: true } : {}) },
    ]),
  ),
  help: { type: 'boolean', short: 'h' },
};

function defaultOf(s: Setting): string | undefined {
  if (s.defaultText !== undefined) return s.defaultText.replace(/`/g, '');
  if (s.default === undefined || s.default === false) return undefined;
  return String(s.default);
}

/** The usage text, from the settings table: each flag, what it does and its variable. */
export const SERVICE_USAGE = [
  'Usage: chatbridge service [options]',
  ...FLAG_SETTINGS.flatMap((s) => {
    const flag = `--${s.flag}${s.arg ? ` ${s.arg}` : ''}`;
    const fallback = defaultOf(s);
    const help = `${s.help.replace(/`/g, '')}${fallback ? ` (default ${fallback})` : ''}`;
    return [`  ${flag.padEnd(32)}${help}`, `  ${''.padEnd(32)}env ${s.name}`];
  }),
].join('\n');

class UsageError extends CodedError {
  constructor(message: string) {
    super(ErrorCode.UsageInvalid, message);
  }
}

/** Reads flags and environment into service options (throws UsageError with the field). */
export function serviceOptionsFrom(
  argv: string[],
  env: NodeJS.ProcessEnv,
  warn?: DeprecationWarn,
): LocalServiceOptions {
  const { values } = parseArgs({
    args: argv,
    options: FLAGS,
    strict: true,
    allowPositionals: false,
  });
  /** A setting's value: its flag wins over its variable; an error names the one it came from. */
  const read = (name: string): SettingValue | undefined => {
    const s = setting(name);
    const given = (values as Record<string, string | boolean | string[] | undefined>)[s.flag ?? ''];
    if (Array.isArray(given)) return given.map((v) => v.trim()).filter((v) => v !== '');
    if (typeof given === 'boolean') return given;
    const { raw, from } =
      given !== undefined ? { raw: given, from: `--${s.flag}` } : rawSetting(s, env, warn);
    const parsed = settingSchema(s).safeParse(raw);
    if (!parsed.success) throw new UsageError(`${from}: ${parsed.error.issues[0]!.message}`);
    return parsed.data;
  };
  const text = (name: string) => read(name) as string | undefined;
  const whole = (name: string) => read(name) as number | undefined;
  const apiKeys = (read('CHATBRIDGE_SERVICE_API_KEYS') as string[] | undefined) ?? [];
  if (apiKeys.length === 0) {
    throw new UsageError(
      '--api-key: at least one API key is required (or CHATBRIDGE_SERVICE_API_KEYS)',
    );
  }
  const dataDir = text('CHATBRIDGE_SERVICE_DATA_DIR')!;
  const llmUrl = text('LLM_URL');
  const llmModel = text('LLM_MODEL');
  if (llmUrl !== undefined && llmModel === undefined) {
    throw new UsageError('--llm-model: is required with --llm-url');
  }
  // Checked even without --llm-url, so a typo is not silently ignored.
  const firstByteTimeoutMs = whole('LLM_FIRST_BYTE_TIMEOUT_MS');
  const idleTimeoutMs = whole('LLM_IDLE_TIMEOUT_MS');
  const embeddingsUrl = text('EMBEDDINGS_URL');
  const embeddingsModel = text('EMBEDDINGS_MODEL');
  if (embeddingsUrl !== undefined && embeddingsModel === undefined) {
    throw new UsageError('--embeddings-model: is required with --embeddings-url');
  }
  const embeddingsTimeoutMs = whole('EMBEDDINGS_TIMEOUT_MS');
  const questionTimeoutMs = whole('EMBEDDINGS_QUESTION_TIMEOUT_MS');
  const faults: FaultOptions = {
    firstByteDelayMs: whole('CHATBRIDGE_SERVICE_FAULT_FIRST_BYTE_DELAY_MS'),
    failStatus: whole('CHATBRIDGE_SERVICE_FAULT_STATUS'),
    cutAfterPieces: whole('CHATBRIDGE_SERVICE_FAULT_CUT_AFTER'),
  };
  return {
    apiKeys,
    port: whole('CHATBRIDGE_SERVICE_PORT')!,
    host: text('CHATBRIDGE_SERVICE_HOST')!,
    storeUrl:
      text('CHATBRIDGE_SERVICE_STORE') ?? `sqlite://${resolve(dataDir, 'local-service.sqlite')}`,
    streamDelayMs: whole('CHATBRIDGE_SERVICE_STREAM_DELAY_MS'),
    refusePrivateUrls: read('CHATBRIDGE_SERVICE_REFUSE_PRIVATE_URLS') as boolean,
    maxUploadBytes: whole('CHATBRIDGE_SERVICE_MAX_UPLOAD_BYTES'),
    extraction: {
      timeoutMs: whole('CHATBRIDGE_SERVICE_EXTRACT_TIMEOUT_MS'),
      memoryMb: whole('CHATBRIDGE_SERVICE_EXTRACT_MEMORY_MB'),
    },
    llm:
      llmUrl === undefined
        ? undefined
        : {
            url: llmUrl,
            model: llmModel as string,
            apiKey: text('LLM_API_KEY'),
            firstByteTimeoutMs,
            idleTimeoutMs,
          },
    embeddings:
      embeddingsUrl === undefined
        ? undefined
        : {
            url: embeddingsUrl,
            model: embeddingsModel as string,
            apiKey: text('EMBEDDINGS_API_KEY'),
            timeoutMs: embeddingsTimeoutMs,
            questionTimeoutMs,
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
  const secrets = [
    ...options.apiKeys,
    ...[options.llm?.apiKey, options.embeddings?.apiKey].filter((key) => key !== undefined),
  ];
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
