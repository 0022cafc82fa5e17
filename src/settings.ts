// Every setting chatbridge reads from the environment, in one table (as Datasette's SETTINGS):
// name, type, default and help, and for `chatbridge service` its flag. The table drives the zod
// parsing (config.ts, local-service/command.ts), the service's flags and usage text, and the
// generated docs/configuration.md (settings-reference.ts). One name per knob; a renamed knob
// keeps reading its old names, with a deprecation warning the first time each one is used.
import { z } from 'zod';

/** The commands and surfaces that read a setting (its section in docs/configuration.md). */
export type SettingUse = 'start' | 'service' | 'slack' | 'discord';

export type SettingType =
  /** Free text (a name, a path, an address to listen on). */
  | 'text'
  /** Free text never printed (a key, a token). */
  | 'secret'
  /** An http(s) address. */
  | 'url'
  /** Digits only, between min and max. */
  | 'whole'
  /** 1, true, yes or on; anything else is off. */
  | 'switch'
  /** One of `choices`. */
  | 'choice'
  /** Items separated by commas (and spaces, where `spaces` says so). */
  | 'list'
  /** A state store address (sqlite://, redis://, rediss://, memory://). */
  | 'store';

export type SettingValue = string | number | boolean | string[];

export interface Setting {
  readonly name: string;
  readonly type: SettingType;
  /** Where it is read; the first is its section in the docs. */
  readonly use: readonly SettingUse[];
  readonly help: string;
  /** The value when unset (and what the docs show). */
  readonly default?: string | number | boolean;
  /** What the docs say for a default that is worked out (from another setting, per surface). */
  readonly defaultText?: string;
  readonly min?: number;
  readonly max?: number;
  readonly choices?: readonly string[];
  /** For lists: spaces separate items as well as commas. */
  readonly spaces?: boolean;
  /** The `chatbridge service` flag, without `--`. */
  readonly flag?: string;
  /** The flag's argument in the usage text (N, URL …); none for a switch. */
  readonly arg?: string;
  /** A list flag may be given more than once. */
  readonly repeat?: boolean;
  /** Earlier names still read (deprecated). */
  readonly oldNames?: readonly string[];
}

/** An hour: a model loading on slow hardware may be slow, but a timer must stay a timer. */
export const LLM_TIMEOUT_MAX_MS = 3_600_000;
/** The largest file `source upload` takes when CHATBRIDGE_MAX_UPLOAD_BYTES is not set (10 MiB). */
export const DEFAULT_MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const SETTINGS: readonly Setting[] = [
  // chatbridge start
  {
    name: 'CHATBRIDGE_SERVICE_URL',
    type: 'url',
    use: ['start'],
    help: "The chatbot service's host, e.g. `https://app.gpt-trainer.com`",
    defaultText: 'the embedded local service',
  },
  {
    name: 'CHATBRIDGE_API_KEY',
    type: 'secret',
    use: ['start'],
    help: "The service's API key (required with `CHATBRIDGE_SERVICE_URL`)",
  },
  {
    name: 'CHATBRIDGE_STORE',
    type: 'store',
    use: ['start'],
    help: 'Where chatbridge keeps thread sessions, bindings, reply links, de-duplication and locks: `sqlite://path`, `redis://host:6379` (several replicas), `memory://`',
    defaultText: '`sqlite://<CHATBRIDGE_DATA_DIR>/chatbridge.sqlite`',
  },
  {
    name: 'CHATBRIDGE_DATA_DIR',
    type: 'text',
    use: ['start'],
    help: "Folder for the SQLite files and the embedded service's data",
    default: 'data',
  },
  {
    name: 'CHATBRIDGE_CHATBOT',
    type: 'text',
    use: ['start'],
    help: 'Chatbot (uuid or name) answering, and managed by admin commands, where no binding exists',
    defaultText: 'the demo chatbot (embedded)',
  },
  {
    name: 'CHATBRIDGE_ADMINS',
    type: 'list',
    spaces: true,
    use: ['start', 'slack', 'discord'],
    help: 'Platform user ids (separated by commas or spaces) allowed to run admin commands, besides workspace admins',
  },
  {
    name: 'CHATBRIDGE_STREAM_DELAY_MS',
    type: 'whole',
    min: 0,
    max: 10_000,
    use: ['start'],
    help: 'Pause between answer pieces of the embedded service, so streaming is visible',
    default: 15,
  },
  {
    name: 'CHATBRIDGE_MAX_UPLOAD_BYTES',
    type: 'whole',
    min: 1,
    max: 100_000_000,
    use: ['start', 'slack', 'discord'],
    help: "Largest file `source upload` takes on every surface (also the embedded service's limit)",
    default: DEFAULT_MAX_UPLOAD_BYTES,
  },
  {
    name: 'CHATBRIDGE_DRAIN_MS',
    type: 'whole',
    min: 0,
    max: 600_000,
    use: ['start'],
    help: 'After SIGTERM, how long answers in progress may go on before they end with a notice',
    default: 10_000,
  },
  {
    name: 'CHATBRIDGE_LEASE_MS',
    type: 'whole',
    min: 100,
    max: 600_000,
    use: ['start'],
    help: 'How long a replica that went silent (crashed, killed) holds its threads and the events it took in; then another replica (on SQLite: the restarted process) takes them over and finishes their answers',
    default: 15_000,
  },
  {
    name: 'PORT',
    type: 'whole',
    min: 0,
    max: 65535,
    use: ['start', 'slack'],
    help: 'HTTP port of `GET /healthz`, `/readyz`, `/metrics` (and `/slack/events` in Slack HTTP mode); see [deploy.md](deploy.md)',
    default: 3000,
  },
  {
    name: 'LOG_LEVEL',
    type: 'choice',
    choices: LOG_LEVELS,
    use: ['start'],
    help: 'How much is logged',
    default: 'info',
    defaultText: '`info` (`warn` in the terminal chat)',
  },
  // The local service's language model: the embedded one (start) and `chatbridge service`.
  {
    name: 'LLM_URL',
    type: 'url',
    use: ['start', 'service'],
    flag: 'llm-url',
    arg: 'URL',
    help: 'An OpenAI-compatible chat-completions endpoint that writes answers from the retrieved passages (otherwise answers are extractive, composed from the best passages)',
    oldNames: ['CHATBRIDGE_SERVICE_LLM_URL'],
  },
  {
    name: 'LLM_MODEL',
    type: 'text',
    use: ['start', 'service'],
    flag: 'llm-model',
    arg: 'NAME',
    help: 'The model for `LLM_URL`: `gpt-4o-mini` when unset in the embedded service; `chatbridge service` requires it with `--llm-url`',
    oldNames: ['CHATBRIDGE_SERVICE_LLM_MODEL'],
  },
  {
    name: 'LLM_API_KEY',
    type: 'secret',
    use: ['start', 'service'],
    help: 'The key `LLM_URL` takes, if any (no flag: keys stay out of process listings)',
  },
  {
    name: 'LLM_FIRST_BYTE_TIMEOUT_MS',
    type: 'whole',
    min: 1,
    max: LLM_TIMEOUT_MAX_MS,
    use: ['start', 'service'],
    flag: 'llm-first-byte-timeout-ms',
    arg: 'N',
    help: "With `LLM_URL`: longest wait for the model's first event",
    defaultText: '`30000`',
    oldNames: ['CHATBRIDGE_SERVICE_LLM_FIRST_BYTE_TIMEOUT_MS'],
  },
  {
    name: 'LLM_IDLE_TIMEOUT_MS',
    type: 'whole',
    min: 1,
    max: LLM_TIMEOUT_MAX_MS,
    use: ['start', 'service'],
    flag: 'llm-idle-timeout-ms',
    arg: 'N',
    help: 'With `LLM_URL`: longest silence between two events mid-answer',
    defaultText: '`60000`',
    oldNames: ['CHATBRIDGE_SERVICE_LLM_IDLE_TIMEOUT_MS'],
  },
  // The local service's optional semantic retrieval (knowledge/semantic-index.ts).
  {
    name: 'EMBEDDINGS_URL',
    type: 'url',
    use: ['start', 'service'],
    flag: 'embeddings-url',
    arg: 'URL',
    help: 'An OpenAI-compatible embeddings endpoint (`…/v1`; `/embeddings` is appended), e.g. Ollama, a llama.cpp server, OpenAI: chunks and questions are embedded, and the chunks nearest a question join the words search by reciprocal rank fusion (off when unset)',
  },
  {
    name: 'EMBEDDINGS_MODEL',
    type: 'text',
    use: ['start', 'service'],
    flag: 'embeddings-model',
    arg: 'NAME',
    help: 'The model for `EMBEDDINGS_URL` (required with it), e.g. `nomic-embed-text`; a new model embeds every chunk again',
  },
  {
    name: 'EMBEDDINGS_API_KEY',
    type: 'secret',
    use: ['start', 'service'],
    help: 'The key `EMBEDDINGS_URL` takes, if any (no flag: keys stay out of process listings)',
  },
  {
    name: 'EMBEDDINGS_TIMEOUT_MS',
    type: 'whole',
    min: 100,
    max: LLM_TIMEOUT_MAX_MS,
    use: ['start', 'service'],
    flag: 'embeddings-timeout-ms',
    arg: 'N',
    help: 'With `EMBEDDINGS_URL`: longest time one call embedding stored chunks (32 at a time) may take; a source that fails is searched by its words and tried again every minute',
    defaultText: '`30000`',
  },
  {
    name: 'EMBEDDINGS_QUESTION_TIMEOUT_MS',
    type: 'whole',
    min: 10,
    max: 60_000,
    use: ['start', 'service'],
    flag: 'embeddings-question-timeout-ms',
    arg: 'N',
    help: "With `EMBEDDINGS_URL`: longest wait for a question's vector; past it the question is answered from the words search alone",
    defaultText: '`2000`',
  },
  // chatbridge service
  {
    name: 'CHATBRIDGE_SERVICE_PORT',
    type: 'whole',
    min: 0,
    max: 65535,
    use: ['service'],
    flag: 'port',
    arg: 'N',
    help: 'Port to listen on (0: any free port)',
    default: 8787,
  },
  {
    name: 'CHATBRIDGE_SERVICE_HOST',
    type: 'text',
    use: ['service'],
    flag: 'host',
    arg: 'ADDR',
    help: 'Address to listen on',
    default: '127.0.0.1',
  },
  {
    name: 'CHATBRIDGE_SERVICE_API_KEYS',
    type: 'list',
    use: ['service'],
    flag: 'api-key',
    arg: 'KEY',
    repeat: true,
    help: 'The API keys the service accepts, one per user (required; the flag may be repeated)',
  },
  {
    name: 'CHATBRIDGE_SERVICE_STORE',
    type: 'text',
    use: ['service'],
    flag: 'store',
    arg: 'URL',
    help: '`sqlite://path` (shared by processes) or `memory://`',
    defaultText: '`sqlite://<data dir>/local-service.sqlite`',
  },
  {
    name: 'CHATBRIDGE_SERVICE_DATA_DIR',
    type: 'text',
    use: ['service'],
    flag: 'data-dir',
    arg: 'DIR',
    help: 'Folder of the default SQLite store',
    default: 'data',
  },
  {
    name: 'CHATBRIDGE_SERVICE_STREAM_DELAY_MS',
    type: 'whole',
    min: 0,
    max: 60_000,
    use: ['service'],
    flag: 'stream-delay-ms',
    arg: 'N',
    help: 'Pause between streamed pieces',
    defaultText: '`0`',
  },
  {
    name: 'CHATBRIDGE_SERVICE_REFUSE_PRIVATE_URLS',
    type: 'switch',
    use: ['service'],
    flag: 'refuse-private-urls',
    help: 'Refuse URL sources on private and loopback addresses',
    default: false,
  },
  {
    name: 'CHATBRIDGE_SERVICE_MAX_UPLOAD_BYTES',
    type: 'whole',
    min: 1,
    max: 2 ** 31,
    use: ['service'],
    flag: 'max-upload-bytes',
    arg: 'N',
    help: 'Largest uploaded file',
    defaultText: `\`${DEFAULT_MAX_UPLOAD_BYTES}\``,
  },
  {
    name: 'CHATBRIDGE_SERVICE_EXTRACT_TIMEOUT_MS',
    type: 'whole',
    min: 100,
    max: LLM_TIMEOUT_MAX_MS,
    use: ['service'],
    flag: 'extract-timeout-ms',
    arg: 'N',
    help: "Time one file's text extraction may take; past it the file is refused",
    defaultText: '`20000`',
  },
  {
    // Below 128 MB a worker cannot load pdfjs's parser to read even a one-line PDF.
    name: 'CHATBRIDGE_SERVICE_EXTRACT_MEMORY_MB',
    type: 'whole',
    min: 128,
    max: 65_536,
    use: ['service'],
    flag: 'extract-memory-mb',
    arg: 'N',
    help: 'Heap of each text-extraction process',
    defaultText: '`512`',
  },
  {
    name: 'CHATBRIDGE_SERVICE_FAULT_FIRST_BYTE_DELAY_MS',
    type: 'whole',
    min: 0,
    max: 600_000,
    use: ['service'],
    flag: 'fault-first-byte-delay-ms',
    arg: 'N',
    help: 'Fault injection: hold each answer stream this long before its first byte',
    defaultText: 'off',
  },
  {
    name: 'CHATBRIDGE_SERVICE_FAULT_STATUS',
    type: 'whole',
    min: 400,
    max: 599,
    use: ['service'],
    flag: 'fault-status',
    arg: 'N',
    help: 'Fault injection: answer stream requests with this status',
    defaultText: 'off',
  },
  {
    name: 'CHATBRIDGE_SERVICE_FAULT_CUT_AFTER',
    type: 'whole',
    min: 0,
    max: 1_000_000,
    use: ['service'],
    flag: 'fault-cut-after',
    arg: 'N',
    help: 'Fault injection: cut each answer stream after this many pieces',
    defaultText: 'off',
  },
  // Slack (adapters/slack/config.ts)
  {
    name: 'SLACK_BOT_TOKEN',
    type: 'secret',
    use: ['slack'],
    help: 'One workspace: the bot token (`xoxb-…`); see [slack.md](slack.md)',
  },
  {
    name: 'SLACK_APP_TOKEN',
    type: 'secret',
    use: ['slack'],
    help: 'Socket Mode: the app-level token (`xapp-…`)',
  },
  {
    name: 'SLACK_SIGNING_SECRET',
    type: 'secret',
    use: ['slack'],
    help: 'HTTP mode (and OAuth installs): the signing secret of requests from Slack',
  },
  {
    name: 'SLACK_API_URL',
    type: 'url',
    use: ['slack'],
    help: 'The Web API base (GovSlack, a test fake)',
    default: 'https://slack.com/api/',
  },
  {
    name: 'SLACK_CLIENT_ID',
    type: 'text',
    use: ['slack'],
    help: 'Many workspaces installed through OAuth: the app’s client id; see [slack.md](slack.md#many-workspaces-oauth-installs)',
  },
  {
    name: 'SLACK_CLIENT_SECRET',
    type: 'secret',
    use: ['slack'],
    help: 'OAuth installs: the app’s client secret',
  },
  {
    name: 'SLACK_STATE_SECRET',
    type: 'secret',
    use: ['slack'],
    help: 'OAuth installs: signs the install state',
  },
  {
    name: 'CHATBRIDGE_SECRET_KEY',
    type: 'secret',
    use: ['slack'],
    help: 'OAuth installs: 32 bytes (base64 or hex) the stored bot tokens are encrypted with',
  },
  // Discord (adapters/discord/config.ts, shards.ts)
  {
    name: 'DISCORD_TOKEN',
    type: 'secret',
    use: ['discord'],
    help: 'The bot token; see [discord.md](discord.md)',
  },
  {
    name: 'DISCORD_MESSAGE_CONTENT',
    type: 'choice',
    choices: ['auto', 'on', 'off'],
    use: ['discord'],
    help: 'The Message Content intent: `auto` asks and connects without it when refused, `on` insists, `off` never asks',
    default: 'auto',
  },
  {
    name: 'DISCORD_APPLICATION_ID',
    type: 'text',
    use: ['discord'],
    help: 'The application id for command registration',
    defaultText: 'read from the API',
  },
  {
    name: 'DISCORD_API_URL',
    type: 'url',
    use: ['discord'],
    help: 'The REST base including `/api` (a test fake)',
    default: 'https://discord.com/api',
  },
  {
    name: 'DISCORD_SHARD_COUNT',
    type: 'whole',
    min: 1,
    max: 100_000,
    use: ['discord'],
    help: "The bot's shard count over all processes; see [discord.md](discord.md#6-shards)",
    defaultText: 'one connection (shard 0 of 1)',
  },
  {
    name: 'DISCORD_SHARDS',
    type: 'text',
    use: ['discord'],
    help: "This process's shard ids (`0,1`, `2-3`) or `auto`",
    defaultText: 'all of them',
  },
];

/** The setting of this name; throws for a name not in the table (a typo in code). */
export function setting(name: string): Setting {
  const found = SETTINGS.find((s) => s.name === name);
  if (!found) throw new Error(`no setting named ${name}`);
  return found;
}

/** What a value must be, in words (an error says "<name> <rule>" or "<flag>: <rule>"). */
export function ruleOf(s: Setting): string {
  switch (s.type) {
    case 'url':
      return 'must be an http(s) address, like https://app.gpt-trainer.com';
    case 'whole':
      return `must be a whole number from ${s.min ?? 0} to ${s.max ?? Number.MAX_SAFE_INTEGER}`;
    case 'choice':
      return `must be one of ${(s.choices ?? []).join(', ')}`;
    case 'store':
      return 'must start with sqlite://, redis:// or memory://';
    default:
      return 'must be text';
  }
}

type Parsed = { ok: true; value: SettingValue } | { ok: false };

/** A non-empty, trimmed value read as the setting's type. */
function parseValue(s: Setting, v: string): Parsed {
  switch (s.type) {
    case 'url':
      return /^https?:\/\/[^\s]+$/i.test(v) ? { ok: true, value: v } : { ok: false };
    case 'whole': {
      // Digits only: Number() alone would take "1e3", "0x10" or "1.0".
      const n = /^\d+$/.test(v) ? Number(v) : NaN;
      const inRange = n >= (s.min ?? 0) && n <= (s.max ?? Number.MAX_SAFE_INTEGER);
      return Number.isInteger(n) && inRange ? { ok: true, value: n } : { ok: false };
    }
    case 'choice':
      return s.choices?.includes(v) ? { ok: true, value: v } : { ok: false };
    case 'store':
      return /^(memory|sqlite|redis|rediss):\/\//i.test(v) ? { ok: true, value: v } : { ok: false };
    case 'switch':
      return { ok: true, value: /^(1|true|yes|on)$/i.test(v) };
    case 'list': {
      const items = v.split(s.spaces ? /[\s,]+/ : /,/).map((item) => item.trim());
      return { ok: true, value: items.filter((item) => item !== '') };
    }
    default:
      return { ok: true, value: v };
  }
}

/**
 * The zod schema of one setting: a raw value (or undefined) to its typed value, the default
 * when unset or blank; a broken value is an issue whose message is the rule.
 */
export function settingSchema(s: Setting) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): SettingValue | undefined => {
      const v = raw?.trim();
      if (v === undefined || v === '') return s.default;
      const parsed = parseValue(s, v);
      if (parsed.ok) return parsed.value;
      ctx.addIssue({ code: 'custom', message: ruleOf(s) });
      return z.NEVER;
    });
}

/** The settings a command or surface reads. */
export function settingsOf(use: SettingUse): Setting[] {
  return SETTINGS.filter((s) => s.use.includes(use));
}

const warnedOldNames = new Set<string>();

/** Says once per process that an old name was read. */
export type DeprecationWarn = (message: string) => void;

const processWarning: DeprecationWarn = (message) =>
  process.emitWarning(message, { type: 'DeprecationWarning', code: 'CHATBRIDGE_SETTING' });

/**
 * The raw value of a setting and the variable it came from: its name, else the first old name
 * set (told to `warn` once per old name and process).
 */
export function rawSetting(
  s: Setting,
  env: Readonly<Record<string, string | undefined>>,
  warn: DeprecationWarn = processWarning,
): { raw: string | undefined; from: string } {
  if (env[s.name] !== undefined) return { raw: env[s.name], from: s.name };
  for (const old of s.oldNames ?? []) {
    if (env[old] === undefined) continue;
    if (!warnedOldNames.has(old)) {
      warnedOldNames.add(old);
      warn(`${old} is deprecated: set ${s.name} instead (it is still read for now)`);
    }
    return { raw: env[old], from: old };
  }
  return { raw: undefined, from: s.name };
}

/** The environment with each setting under its one name (old names read, with a warning). */
export function currentNames(
  settings: readonly Setting[],
  env: Readonly<Record<string, string | undefined>>,
  warn?: DeprecationWarn,
): Record<string, string | undefined> {
  return Object.fromEntries(settings.map((s) => [s.name, rawSetting(s, env, warn).raw]));
}
