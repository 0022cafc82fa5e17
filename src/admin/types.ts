// Public shapes of the admin command table. Every surface (console, CLI, Slack, Discord) reads
// these: Slack and Discord build their slash commands from `adminCommands`, the console and CLI
// feed whole lines to `runAdminLine`. Keep them stable.
import type { ServiceClient } from '../service/api.js';
import type { StateStore } from '../state/types.js';

/**
 * What an argument holds, and how its text is read:
 * - text: any non-empty text.
 * - number: a finite number (min/max when given).
 * - boolean: on|off, true|false, yes|no, 1|0 (a value is required: `--citations off`).
 * - switch: a flag with no value, true when present (`--enable`). Discord: a boolean option.
 * - enum: one of `choices`.
 * - rate-limit: `N/S`, N messages per S seconds (e.g. 20/240), foundation limits.
 * - colour: `#` and six hex digits.
 * - url: an absolute http(s) address.
 * - file: a file. On the CLI/console a path (read with ctx.readFile); on platforms the
 *   attachment in ctx.file (Discord: an attachment option). May also arrive as an AdminFile.
 * - list: comma-separated text values (→ string[]).
 * - variables: agent variables, as a JSON array/object or a `name=value,name2=value2` list.
 * - duration: a length of time such as 30m, 12h, 7d or 2w (→ milliseconds).
 * - chatbot | agent | source | tag: a reference by name (case-insensitive) or uuid, resolved
 *   against the current chatbot. Discord: a string option with autocomplete (see `suggest`).
 */
export type ArgKind =
  | 'text'
  | 'number'
  | 'boolean'
  | 'switch'
  | 'enum'
  | 'rate-limit'
  | 'colour'
  | 'url'
  | 'file'
  | 'list'
  | 'variables'
  | 'duration'
  | 'chatbot'
  | 'agent'
  | 'source'
  | 'tag';

/** The kinds `suggest` can complete (Discord autocomplete). */
export type ReferenceKind = 'chatbot' | 'agent' | 'source' | 'tag';

export interface ArgSpec {
  /** Lowercase, hyphenated; the flag is `--name`, the Discord option is `name`. */
  readonly name: string;
  readonly kind: ArgKind;
  readonly required: boolean;
  /** Positional arguments are read in the order they appear in `args`; others are flags. */
  readonly positional: boolean;
  /** One line, shown in help and as the Discord option description (≤ 100 characters). */
  readonly help: string;
  /** For kind 'enum' (and 'boolean' shown as on|off): the allowed values. */
  readonly choices?: readonly string[];
  /** A comma-separated list of values of `kind` (→ string[]); e.g. `--sources a,b`. */
  readonly multiple?: boolean;
  /** For kind 'number'. */
  readonly min?: number;
  readonly max?: number;
  /**
   * Only where files are written on this machine (CLI and terminal chat, ctx.writeFile):
   * platforms leave it out of their slash commands.
   */
  readonly localOnly?: boolean;
}

export type AdminNoun =
  | 'chatbot'
  | 'agent'
  | 'source'
  | 'tag'
  | 'session'
  | 'thread-context'
  | 'assistant'
  | 'feedback'
  | 'help';

/**
 * Parsed and checked argument values by ArgSpec name. Absent optional arguments are absent.
 * Values: text/enum/colour/url/reference → string; number → number; boolean/switch → boolean;
 * rate-limit → [count, seconds]; list or `multiple` → string[]; variables → AgentVariable[];
 * file → AdminFile (resolved before run is called).
 */
export type AdminArgs = Record<string, unknown>;

export interface AdminCommand {
  readonly noun: AdminNoun;
  /** '' for a command that is the noun alone (`help`). */
  readonly verb: string;
  /** One line (≤ 100 characters: it is also the Discord subcommand description). */
  readonly summary: string;
  readonly args: readonly ArgSpec[];
  readonly permission: 'admin' | 'anyone';
  /**
   * The only platforms where it means something (Slack's assistant pane: ['slack']); everywhere
   * when absent. Elsewhere it is refused, left out of help, and Discord does not register it.
   */
  readonly platforms?: readonly string[];
  run(ctx: AdminContext, args: AdminArgs): Promise<AdminOutput[]>;
}

/** A file handed to `source upload`. */
export interface AdminFile {
  name: string;
  bytes: Uint8Array;
  contentType?: string;
  /** Where it came from (Slack permalink, Discord message link): the reference_source_link. */
  link?: string;
}

export interface AdminContext {
  /** Adapter name: "slack", "discord", "console", "cli". */
  platform: string;
  /** Slack team id, Discord guild id, "local" for console and CLI. */
  workspace: string;
  /** Where the command was typed; needed by `chatbot use`. */
  channel?: string;
  /** Thread id (as in ThreadRef.thread); needed by `session reset`. */
  thread?: string;
  userId: string;
  /** Decided by the surface (Slack admins/owners, Discord Manage Server, CLI: true). */
  isAdmin: boolean;
  client: ServiceClient;
  state: StateStore;
  /**
   * The chatbot that answers where nothing is bound (CHATBRIDGE_CHATBOT, or the embedded demo),
   * by uuid or name: commands act on it too when no binding applies.
   */
  defaultChatbot?: string;
  /** The attachment that came with the command (platforms). */
  file?: AdminFile;
  /** Reads a `file` argument given as a path (CLI/console). Absent: paths are refused. */
  readFile?(path: string): Promise<AdminFile>;
  /**
   * Writes a file a command made (CLI and terminal chat) and returns where it went. Absent on
   * platforms: there the command answers with a FileBlock and the surface attaches it.
   */
  writeFile?(path: string, bytes: Uint8Array): Promise<string>;
  /** Clock for records; defaults to the system clock. */
  now?: () => Date;
}

export type NoticeTone = 'ok' | 'info' | 'error';

export interface TableBlock {
  kind: 'table';
  title?: string;
  columns: string[];
  rows: string[][];
}

export interface FieldsBlock {
  kind: 'fields';
  title?: string;
  fields: [label: string, value: string][];
}

export interface NoticeBlock {
  kind: 'notice';
  tone: NoticeTone;
  text: string;
}

/** Preformatted help or usage text (shown monospaced where the surface can). */
export interface TextBlock {
  kind: 'text';
  text: string;
}

/** A file made for the admin (an export): uploaded or attached by the platform surfaces. */
export interface FileBlock {
  kind: 'file';
  name: string;
  contentType: string;
  bytes: Uint8Array;
}

/** One platform-neutral block of a command's answer; a command answers with an array. */
export type AdminOutput = TableBlock | FieldsBlock | NoticeBlock | TextBlock | FileBlock;

export interface Suggestion {
  /** Shown to the user (≤ 100 characters). */
  name: string;
  /** Sent back as the option value (the uuid). */
  value: string;
}

export interface ParsedLine {
  tokens: string[];
}
