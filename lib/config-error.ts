// The error of a bad setting: one line, naming the variable. Its own module so that parsers which
// lib/config.ts itself calls (lib/eligibility/policy.ts) can throw it without an import cycle;
// lib/config.ts re-exports it, so `instanceof ConfigError` holds for every caller.
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
    this.name = 'ConfigError';
  }
}
