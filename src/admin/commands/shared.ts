// Small builders shared by the command files: ArgSpecs and output blocks.
import type { AdminOutput, ArgKind, ArgSpec, FieldsBlock, TableBlock } from '../types.js';

type Extra = Partial<Pick<ArgSpec, 'choices' | 'multiple' | 'min' | 'max' | 'required'>>;

export function positional(name: string, kind: ArgKind, help: string, extra: Extra = {}): ArgSpec {
  return { name, kind, required: true, positional: true, help, ...extra };
}

export function flag(name: string, kind: ArgKind, help: string, extra: Extra = {}): ArgSpec {
  return { name, kind, required: false, positional: false, help, ...extra };
}

export const ON_OFF = ['on', 'off'] as const;

export const chatbotOption: ArgSpec = flag(
  'chatbot',
  'chatbot',
  'Chatbot by name or uuid (default: the one bound to this channel or workspace)',
);

export const ok = (text: string): AdminOutput => ({ kind: 'notice', tone: 'ok', text });
export const info = (text: string): AdminOutput => ({ kind: 'notice', tone: 'info', text });

export function fields(title: string, pairs: [string, string | undefined][]): FieldsBlock {
  return {
    kind: 'fields',
    title,
    fields: pairs.filter((pair): pair is [string, string] => pair[1] !== undefined),
  };
}

export function table(title: string, columns: string[], rows: string[][]): TableBlock {
  return { kind: 'table', title, columns, rows };
}

export const onOff = (value: boolean | undefined): string | undefined =>
  value === undefined ? undefined : value ? 'on' : 'off';

/** Keeps only the keys whose value is defined (so optional inputs are not sent as undefined). */
export function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
