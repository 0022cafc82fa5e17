// A nesting limit for JSON the service accepts (request bodies, an upload's meta_json): a value
// nested thousands deep parses fine but overflows the stack of whatever walks it later
// (serialising the stored record, answering it), so it is refused before anything is stored.
import { fieldOf } from '../service/rules/check.js';
import { HttpError } from './http-errors.js';

/** Arrays and objects inside each other, the outermost one counting as level 1. */
export const MAX_JSON_DEPTH = 32;

/** Whether JSON text nests deeper than `limit`: a count of brackets outside strings. */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return true;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return false;
}

/** The top-level key under which a parsed value nests deeper than `limit` (no recursion). */
function deepKey(value: unknown, limit: number): string | number | undefined {
  const pending: { value: unknown; depth: number; top: string | number | undefined }[] = [
    { value, depth: 0, top: undefined },
  ];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (typeof next.value !== 'object' || next.value === null) continue;
    const depth = next.depth + 1;
    if (depth > limit) return next.top;
    const entries = Array.isArray(next.value)
      ? next.value.map((item, i) => [i, item] as const)
      : Object.entries(next.value);
    for (const [key, item] of entries) {
      pending.push({ value: item, depth, top: next.top ?? key });
    }
  }
  return undefined;
}

/**
 * 400 for JSON text nesting deeper than `limit`, naming the top-level field it happens under
 * (`root` itself when the text does not parse or nests at its top).
 */
export function checkJsonDepth(text: string, root: string, limit = MAX_JSON_DEPTH): void {
  if (!nestsDeeperThan(text, limit)) return;
  let key: string | number | undefined;
  try {
    key = deepKey(JSON.parse(text), limit);
  } catch {
    key = undefined; // not JSON either: the depth is reason enough
  }
  const field = typeof key === 'string' ? fieldOf([key], root) : root;
  throw HttpError.badRequest(
    field,
    `must not nest arrays and objects more than ${limit} levels deep`,
  );
}
