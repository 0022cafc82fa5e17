// The building blocks of the interface's rules, as zod schemas. Every check carries its own
// wording (the "rule" half of "field: rule"), so the client, the local service and its JSON
// schemas all say the same thing about the same bad value.
import { z } from 'zod';
import { LIMITS } from './vocabulary.js';

/** Non-blank text: the value a name, a question or a query must be. */
export const text = () =>
  z
    .string({ error: 'is required and must be a string' })
    .regex(/\S/, { error: 'must not be empty' });

export const optionalString = () => z.string({ error: 'must be a string' }).optional();

export const optionalBoolean = () => z.boolean({ error: 'must be true or false' }).optional();

/** An object whose own fields are checked; extra fields pass (the service keeps growing). */
export const record = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.object(shape, { error: 'must be an object' });

const { min: unitMin, max: unitMax } = LIMITS.unitInterval;
const UNIT_RULE = `must be a number from ${unitMin} to ${unitMax}`;

/** A number in the documented unit interval (temperature, bias, stickness). */
export const unit = () =>
  z
    .number({ error: UNIT_RULE })
    .min(unitMin, { error: UNIT_RULE })
    .max(unitMax, { error: UNIT_RULE })
    .optional();

/** An id in a path or a list: 32 hex characters in practice, dashed UUIDs elsewhere. */
export const ID_PATTERN = /^[^/?#\s]+$/;
export const id = () =>
  z
    .string({ error: 'must be a non-empty id' })
    .min(1, { error: 'must be a non-empty id', abort: true })
    .regex(ID_PATTERN, { error: 'must not contain "/", "?", "#" or spaces' });

export const idList = () => z.array(id(), { error: 'must be a list of ids' }).optional();

export const HEX_COLOUR = /^#[0-9a-fA-F]{6}$/;
const COLOUR_RULE = 'must be "#" followed by six hex digits, like #1a2b3c';
export const colour = () =>
  z.string({ error: COLOUR_RULE }).regex(HEX_COLOUR, { error: COLOUR_RULE });

const isAbsoluteUrl = (value: string): boolean => URL.canParse(value);
const isHttp = (value: string): boolean => /^https?:$/.test(new URL(value).protocol);

/** An absolute http(s) address (what the service fetches, or a citation links to). */
export const httpUrl = () =>
  text()
    .refine(isAbsoluteUrl, { error: 'must be an absolute http(s) address', abort: true })
    .refine(isHttp, { error: 'must use http or https' });

/** A whole number in [min, max]; `label` says what it counts, after the field's name. */
const wholeNumber = (min: number, max: number, label: string) =>
  z
    .custom<number>(
      (value) =>
        typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max,
      { error: `must be a whole number from ${min} to ${max}`, params: { label } },
    )
    .meta({ type: 'integer', minimum: min, maximum: max });

/** [messages, seconds]: at most that many messages per chatbot in that window. */
export const rateLimit = () => {
  const { rateLimitCount: c, rateLimitWindowSeconds: w } = LIMITS;
  return z.tuple([wholeNumber(c.min, c.max, 'messages'), wholeNumber(w.min, w.max, 'seconds')], {
    error: 'must be [count, seconds]',
  });
};

/** One of a fixed list of words. */
export const oneOf = <const Values extends readonly [string, ...string[]]>(values: Values) =>
  z.enum(values, { error: `must be one of ${values.join(', ')}` });

/** The service sends these as 1/0 as often as true/false, and takes both. */
export const flag = () =>
  z
    .union([z.boolean(), z.literal([0, 1])], { error: 'must be true or false (or 1 or 0)' })
    .optional();

/** A value of a flat object: one level deep, no objects or lists inside. */
export const flatValue = () =>
  z.union([z.string(), z.number(), z.boolean(), z.null()], {
    error: 'must be a string, number, boolean or null (flat, one level deep)',
  });
