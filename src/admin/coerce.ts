// Turns one raw argument value (text from a command line, or a typed option from Discord) into
// the value its ArgSpec kind promises, checking it with the foundation's rules. Every failure
// names the argument as the user wrote it and the rule.
import { isServiceError } from '../service/errors.js';
import {
  requireColour,
  requireHttpUrl,
  validateAgentUpdate,
  validateRateLimit,
} from '../service/validate.js';
import type { AgentVariable } from '../service/types.js';
import { AdminInputError } from './errors.js';
import type { AdminFile, ArgSpec } from './types.js';

/** How the user writes this argument: `<name>` for positionals, `--name` for flags. */
export function argLabel(spec: ArgSpec): string {
  return spec.positional ? `<${spec.name}>` : `--${spec.name}`;
}

const TRUE_WORDS = new Set(['on', 'true', 'yes', '1', 'enable', 'enabled']);
const FALSE_WORDS = new Set(['off', 'false', 'no', '0', 'disable', 'disabled']);

export function isAdminFile(value: unknown): value is AdminFile {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AdminFile).name === 'string' &&
    (value as AdminFile).bytes instanceof Uint8Array
  );
}

/** Coerces one value; `multiple` specs split text on commas (or take an array). */
export function coerceArg(spec: ArgSpec, raw: unknown): unknown {
  if (spec.multiple) {
    const parts = Array.isArray(raw) ? raw : splitList(spec, raw);
    if (parts.length === 0) fail(spec, 'needs at least one value (comma-separated)');
    return parts.map((part) => coerceOne(spec, part));
  }
  return coerceOne(spec, raw);
}

function splitList(spec: ArgSpec, raw: unknown): unknown[] {
  if (typeof raw !== 'string') fail(spec, 'must be a comma-separated list');
  return (raw as string)
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

function fail(spec: ArgSpec, rule: string): never {
  throw new AdminInputError(argLabel(spec), rule);
}

/** Runs a foundation check and restates its ServiceError as this argument's mistake. */
function foundation<T>(spec: ArgSpec, check: () => T, withField = false): T {
  try {
    return check();
  } catch (error) {
    if (isServiceError(error, 'validation')) {
      const rule = error.rule ?? error.message;
      fail(spec, withField && error.field ? `${error.field} ${rule}` : rule);
    }
    throw error;
  }
}

function text(spec: ArgSpec, raw: unknown): string {
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  if (typeof raw !== 'string') fail(spec, 'must be text');
  if ((raw as string).trim() === '') fail(spec, 'must not be empty');
  return raw as string;
}

function coerceOne(spec: ArgSpec, raw: unknown): unknown {
  switch (spec.kind) {
    case 'text':
    case 'chatbot':
    case 'agent':
    case 'source':
    case 'tag':
      // References are looked up, so stray spaces would only make them miss.
      return spec.kind === 'text' ? text(spec, raw) : text(spec, raw).trim();
    case 'number':
      return number(spec, raw);
    case 'boolean':
    case 'switch':
      return boolean(spec, raw);
    case 'enum': {
      const value = text(spec, raw).toLowerCase();
      const choices = spec.choices ?? [];
      if (!choices.includes(value)) fail(spec, `must be one of ${choices.join(', ')}`);
      return value;
    }
    case 'rate-limit':
      return rateLimit(spec, raw);
    case 'colour': {
      const value = text(spec, raw).trim();
      return foundation(spec, () => requireColour(value, spec.name));
    }
    case 'url': {
      const value = text(spec, raw).trim();
      return foundation(spec, () => requireHttpUrl(value, spec.name));
    }
    case 'list':
      return Array.isArray(raw) ? raw.map((part) => text(spec, part)) : splitList(spec, raw);
    case 'variables':
      return variables(spec, raw);
    case 'duration':
      return duration(spec, raw);
    case 'file':
      if (isAdminFile(raw)) return raw;
      return text(spec, raw);
  }
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
/** Ten years: anything longer is a typo, not a window. */
const MAX_DURATION_MS = 3650 * 86_400_000;

/** `30m`, `12h`, `7d`, `2w` → milliseconds. */
function duration(spec: ArgSpec, raw: unknown): number {
  const value = text(spec, raw).trim().toLowerCase();
  const match = /^(\d+)\s*([mhdw])$/.exec(value);
  const rule = 'must be a length of time: a whole number and m, h, d or w, like 30m, 12h, 7d, 2w';
  if (!match) return fail(spec, `${rule} (got "${String(raw)}")`);
  const ms = Number(match[1]) * UNIT_MS[match[2]!]!;
  if (ms <= 0) return fail(spec, 'must be longer than 0');
  if (ms > MAX_DURATION_MS) return fail(spec, 'must be at most 3650d (ten years)');
  return ms;
}

function number(spec: ArgSpec, raw: unknown): number {
  const value = typeof raw === 'number' ? raw : Number(text(spec, raw).trim());
  if (!Number.isFinite(value)) fail(spec, `must be a number (got "${String(raw)}")`);
  const { min, max } = spec;
  if (min !== undefined && max !== undefined && (value < min || value > max)) {
    fail(spec, `must be a number from ${min} to ${max}`);
  }
  if (min !== undefined && value < min) fail(spec, `must be at least ${min}`);
  if (max !== undefined && value > max) fail(spec, `must be at most ${max}`);
  return value;
}

function boolean(spec: ArgSpec, raw: unknown): boolean {
  if (typeof raw === 'boolean') return raw;
  const word = text(spec, raw).trim().toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return fail(spec, `must be on or off (got "${String(raw)}")`);
}

function rateLimit(spec: ArgSpec, raw: unknown): [number, number] {
  const value = text(spec, raw).trim();
  const match = /^(\d+)\s*\/\s*(\d+)\s*s?$/i.exec(value);
  if (!match) {
    fail(spec, `must be N/S: N messages per S seconds, like 20/240 (got "${value}")`);
  }
  const pair = [Number(match?.[1]), Number(match?.[2])];
  try {
    return validateRateLimit(pair, 'rate_limit');
  } catch (error) {
    if (!isServiceError(error, 'validation')) throw error;
    const part = error.field?.includes('[0]') ? 'N (messages)' : 'S (seconds)';
    return fail(spec, `${part} ${error.rule ?? 'is out of range'}`);
  }
}

function variables(spec: ArgSpec, raw: unknown): AgentVariable[] {
  const value = typeof raw === 'string' ? raw.trim() : raw;
  let items: unknown[];
  if (typeof value === 'string' && /^[[{]/.test(value)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch (error) {
      return fail(spec, `is not valid JSON (${(error as Error).message})`);
    }
    items = Array.isArray(parsed)
      ? parsed
      : Object.entries(parsed as Record<string, unknown>).map(([name, content]) => ({
          name,
          default_value: { content: String(content), static: 0 },
        }));
  } else if (typeof value === 'string') {
    items = splitList(spec, value).map((pair) => {
      const text = pair as string;
      const eq = text.indexOf('=');
      if (eq <= 0) fail(spec, `"${text}" must be name=value (or give a JSON array)`);
      return { name: text.slice(0, eq).trim(), default_value: { content: text.slice(eq + 1) } };
    });
  } else if (Array.isArray(value)) {
    items = value;
  } else {
    return fail(spec, 'must be JSON or a name=value list');
  }
  const list = items.map((item) => completeVariable(spec, item));
  foundation(spec, () => validateAgentUpdate({ variables: list }), true);
  return list;
}

/** Fills the fields the service shows on every variable, so a short form is enough. */
function completeVariable(spec: ArgSpec, item: unknown): AgentVariable {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    return fail(spec, 'each variable must be an object with a name');
  }
  const v = item as Partial<AgentVariable> & {
    default_value?: Partial<AgentVariable['default_value']>;
  };
  return {
    ...v,
    name: v.name as string,
    description: v.description ?? '',
    example: v.example ?? '',
    type: v.type ?? 'string',
    default_value: {
      ...v.default_value,
      content: v.default_value?.content ?? '',
      static: v.default_value?.static ?? 0,
    },
  };
}
