// Runs a foundation validator on the input a command is about to send and restates a failure
// in the command's own words: the service field (rate_limit, meta.stickness, …) becomes the
// argument the user typed (--rate-limit, --stickness, …).
import { isServiceError } from '../service/errors.js';
import { AdminInputError } from './errors.js';

/** Service field (without indexes) → argument label, where the plain rule does not fit. */
const LABELS: Record<string, string> = {
  show_citations: '--citations',
  enabled: '--enable/--disable',
  data_source_uuids: '--sources',
  reference_source_link: '--link',
  file_name: '<file>',
  file: '<file>',
  'meta.default_message': '--default-message',
};

/**
 * `positionals` names the service fields the command takes as plain arguments (they are shown
 * as `<name>`); every other field becomes `--field-name` (meta. dropped, _ → -).
 */
export function checkedInput<T>(
  validate: (input: unknown) => T,
  input: T,
  positionals: readonly string[] = [],
): T {
  try {
    return validate(input);
  } catch (error) {
    if (!isServiceError(error, 'validation') || error.field === undefined) throw error;
    throw new AdminInputError(labelOf(error.field, positionals), error.rule ?? error.message);
  }
}

export function labelOf(field: string, positionals: readonly string[] = []): string {
  const base = field.replace(/\[.*$/, '').replace(/ .*$/, '');
  if (positionals.includes(base)) return `<${base}>`;
  const known = LABELS[base];
  if (known) return known;
  return `--${base.replace(/^meta\./, '').replace(/_/g, '-')}`;
}
