// A Discord setting that cannot be used, naming the variable and the rule it breaks.
export class DiscordConfigError extends Error {
  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super(`${field}: ${rule}`);
    this.name = 'DiscordConfigError';
  }
}
