// A mistake in what the user typed: names the argument and the rule it broke. Never thrown out
// of runAdminLine/runAdminCommand; they turn it into an error notice plus the command's usage.
import { CodedError, ErrorCode } from '../errors.js';
import type { AdminCommand } from './types.js';

export class AdminInputError extends CodedError {
  /** The argument at fault as the user would write it (`--rate-limit`, `<name>`), if any. */
  readonly argument?: string;
  readonly rule: string;
  /** The command whose usage should follow the notice, when known. */
  readonly command?: AdminCommand;

  constructor(argument: string | undefined, rule: string, command?: AdminCommand) {
    super(ErrorCode.AdminInput, argument === undefined ? rule : `${argument}: ${rule}`);
    this.name = 'AdminInputError';
    this.argument = argument;
    this.rule = rule;
    this.command = command;
  }
}

/** A refusal or a missing prerequisite that is not about one argument (no usage shown). */
export class AdminRefusal extends CodedError {
  constructor(message: string) {
    super(ErrorCode.AdminRefused, message);
    this.name = 'AdminRefusal';
  }
}
