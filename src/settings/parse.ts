// One setting's raw text to its typed value (zod), and its rule in words for an error.
import { z } from 'zod';
import type { Setting, SettingValue } from './types.js';

/** What a value must be, in words (an error says "<name> <rule>" or "<flag>: <rule>"). */
export function ruleOf(s: Setting): string {
  if (s.rule !== undefined) return s.rule;
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
    case 'choice': {
      // Any case, read as the choice is written ("OFF" is off).
      const choice = s.choices?.find((c) => c.toLowerCase() === v.toLowerCase());
      return choice !== undefined ? { ok: true, value: choice } : { ok: false };
    }
    case 'store':
      return /^(memory|sqlite|redis|rediss):\/\//i.test(v) ? { ok: true, value: v } : { ok: false };
    case 'switch':
      return { ok: true, value: /^(1|true|yes|on)$/i.test(v) };
    case 'list': {
      const items = v.split(s.spaces ? /[\s,]+/ : /,/).map((item) => item.trim());
      return { ok: true, value: items.filter((item) => item !== '') };
    }
    default:
      return !s.pattern || s.pattern.test(v) ? { ok: true, value: v } : { ok: false };
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
