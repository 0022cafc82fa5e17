// A Discord setting that cannot be used, naming the variable and the rule it breaks.
import { CodedError, ErrorCode } from '../../src/errors.js';
export class DiscordConfigError extends CodedError {
  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super(ErrorCode.ConfigInvalid, `${field}: ${rule}`);
    this.name = 'DiscordConfigError';
  }
}
