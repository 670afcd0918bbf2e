// Errors are values with a stable code. lib/http/problem.ts maps each code to HTTP in one place.
export type ErrorCode =
  | 'invalid_request'
  | 'message_not_issued'
  | 'message_expired'
  | 'signature_invalid'
  | 'pass_not_found'
  | 'google_wallet_not_configured'
  | 'message_already_used'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'service_unavailable'
  | 'internal_error';

export type FieldError = { field: string; message: string };

/**
 * Marks AppError instances by a registered symbol rather than by class: the custom server and the
 * Next.js route bundles each load their own copy of this module, so `instanceof` would fail for
 * an error thrown by one copy and caught by the other.
 */
const APP_ERROR = Symbol.for('wallet-pass-claim.AppError');

export class AppError extends Error {
  readonly [APP_ERROR] = true;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: { fields?: FieldError[]; retryAfterSeconds?: number } = {},
  ) {
    super(`${code}: ${detail}`);
    this.name = 'AppError';
  }
}

export const isAppError = (e: unknown): e is AppError =>
  typeof e === 'object' && e !== null && (e as { [APP_ERROR]?: boolean })[APP_ERROR] === true;
