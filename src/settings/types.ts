// The shape of a row of the settings table (index.ts) and what its value becomes once parsed.
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
  /** Text (or a secret) must match this as well; `rule` says so in words. */
  readonly pattern?: RegExp;
  /** The rule a value breaking `pattern` is told, after the name ("must start with xoxb-"). */
  readonly rule?: string;
}

type ValueOfType<T> = T extends 'whole'
  ? number
  : T extends 'switch'
    ? boolean
    : T extends 'list'
      ? string[]
      : string;

/** A row's parsed value: of its type, and possibly undefined unless the row has a default. */
export type RowValue<R> = R extends { type: infer T; default: unknown }
  ? ValueOfType<T>
  : R extends { type: infer T }
    ? ValueOfType<T> | undefined
    : never;

/** The rows of `Rows` read by `U`. */
export type RowsFor<U extends SettingUse, Rows> = Rows extends { use: readonly (infer V)[] }
  ? U extends V
    ? Rows
    : never
  : never;

/** The parsed settings of `U`: one typed field per row, named as the variable. */
export type ValuesOf<U extends SettingUse, Rows> = {
  [R in RowsFor<U, Rows> as R extends { name: infer N extends string } ? N : never]: RowValue<R>;
};

/** An hour: a model loading on slow hardware may be slow, but a timer must stay a timer. */
export const LLM_TIMEOUT_MAX_MS = 3_600_000;
/** The largest file `source upload` takes when CHATBRIDGE_MAX_UPLOAD_BYTES is not set (10 MiB). */
export const DEFAULT_MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
