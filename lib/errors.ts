// Errors are values with a stable code, and the catalogue of those codes. Domain code throws an
// AppError; lib/api/problem.ts turns it into HTTP in one place. This module has no dependencies,
// so the browser client and the command-line tools import the catalogue without server code.

/** Every problem code, with its HTTP status, its title and when it is answered (the API reference's text). */
export const PROBLEMS = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    when:
      'The body is not a JSON object, or a field is missing, mistyped, too long, not base58, the wrong ' +
      'length, or an unknown walletType. `fields` lists each bad field.',
  },
  message_not_issued: {
    status: 401,
    title: 'Message not issued by this service',
    when: 'The message was not issued by this service for this public key, or it was altered. Ask /api/v1/claim/init for a new one.',
  },
  message_expired: {
    status: 401,
    title: 'Message expired',
    when: 'The message is past its expiration time. Ask /api/v1/claim/init for a new one.',
  },
  signature_invalid: {
    status: 401,
    title: 'Signature invalid',
    when: 'The signature does not verify for this message and public key (signed by another key, over other bytes, or not canonical).',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    when:
      'An operator endpoint without a valid credential: no `Authorization: Bearer` token or session ' +
      'cookie, or one that is unknown, expired, revoked or malformed. On the PassKit web service ' +
      '(/passkit): no `Authorization: ApplePass <token>` carrying the pass’s authentication token.',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    when:
      'The signed-in wallet is not in OPERATOR_WALLETS (any more), or a request carrying the session ' +
      'cookie came from another site (the CSRF check), or a credential was used where it cannot be (an API key to sign out or ' +
      'to make keys; a scan key anywhere but check-in and the program list).',
  },
  not_eligible: {
    status: 403,
    title: 'Not eligible',
    when:
      'The wallet does not meet the claim policy (CLAIM_POLICY) of this service. `detail` says, in plain ' +
      'words, which requirement is missing; an allowlist is never shown.',
  },
  invalid_image: {
    status: 400,
    title: 'Invalid image',
    when: 'An image upload that is not a decodable PNG or JPEG (truncated, mislabelled, a decompression bomb, or over 10,000 pixels a side).',
  },
  program_closed: {
    status: 403,
    title: 'Program closed',
    when: 'The program is closed, or not open at this time (before its opensAt, after its closesAt). `detail` says when it opens, where it will.',
  },
  sold_out: { status: 403, title: 'Sold out', when: 'Every pass of the program’s supply is issued.' },
  program_not_found: { status: 404, title: 'Program not found', when: 'No program has this slug, or it is a draft (only operators see drafts).' },
  image_not_found: { status: 404, title: 'Image not found', when: 'The program has no image of this kind.' },
  pass_not_found: { status: 404, title: 'Pass not found', when: 'No pass has this id (or, for operators, this serial number).' },
  api_key_not_found: { status: 404, title: 'API key not found', when: 'No operator API key has this id.' },
  delivery_not_found: { status: 404, title: 'Delivery not found', when: 'No webhook delivery has this id.' },
  update_not_found: { status: 404, title: 'Update not found', when: 'No update (program change or message) has this id.' },
  google_wallet_not_configured: {
    status: 404,
    title: 'Google Wallet not configured',
    when: 'This service has no Google Wallet issuer configured, so passes have no Save to Google Wallet link.',
  },
  not_found: { status: 404, title: 'Not found', when: 'No endpoint answers at this path.' },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    when: 'The path does not answer this method; the Allow header lists the ones it does.',
  },
  message_already_used: {
    status: 409,
    title: 'Message already used',
    when: 'The message was claimed before; each message claims once. Ask /api/v1/claim/init for a new one.',
  },
  program_exists: { status: 409, title: 'Program exists', when: 'A new program’s slug is in use by another program.' },
  payload_too_large: { status: 413, title: 'Payload too large', when: 'The body is over 16 KiB (an image upload: over 2 MiB).' },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    when: 'The body was not sent with Content-Type: application/json (an image upload: image/png or image/jpeg).',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    when: 'Over the per-address limit of claim-path requests (init and claim together). Retry-After says how many seconds to wait.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    when:
      'The database does not answer, the Solana RPC that eligibility is checked against does not answer in ' +
      'time, or this instance is shutting down. Nothing was half-written; retry shortly.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    when: 'A bug. The body carries a requestId that finds the logged details; quote it when reporting.',
  },
} as const satisfies Record<string, { status: number; title: string; when: string }>;

export type ErrorCode = keyof typeof PROBLEMS;

/** Every problem code, in catalogue order. */
export const PROBLEM_CODES = Object.keys(PROBLEMS) as [ErrorCode, ...ErrorCode[]];

/** The `type` URI of a problem: its entry in the API reference. */
export const problemType = (code: ErrorCode) => `/docs#problem-${code}`;

export type FieldError = { field: string; message: string };

/** An RFC 9457 problem, as the service sends it (application/problem+json). */
export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  fields?: FieldError[];
  requestId?: string;
  /** With program_closed: when the program opens, where it will. */
  opensAt?: string;
};

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: { fields?: FieldError[]; retryAfterSeconds?: number; opensAt?: string } = {},
  ) {
    super(`${code}: ${detail}`);
    this.name = 'AppError';
  }
}

export const isAppError = (error: unknown): error is AppError => error instanceof AppError;

/** One link of an error's cause chain: what drivers and libraries put on their errors. */
export type ErrorLink = { name?: unknown; code?: unknown; message: string };

/**
 * An error and its causes, outermost first (at most `depth`, against cycles). Drivers wrap the
 * error that matters (a socket code, a SQLSTATE) in their own `cause`; Solana wallet adapters wrap
 * the wallet's error in `error`. Every check that classifies an error looks down this chain.
 */
export function* errorChain(error: unknown, depth = 5): Generator<ErrorLink> {
  for (let e = error, seen = 0; e && seen < depth; seen++) {
    const { name, code, message, cause, error: wrapped } = e as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown; error?: unknown };
    yield { name, code, message: typeof message === 'string' ? message : '' };
    e = cause ?? wrapped;
  }
}
