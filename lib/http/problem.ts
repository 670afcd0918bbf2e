// The one place where error codes become HTTP: RFC 9457 problem+json with a stable `code`.
// PROBLEMS is also the source of the API reference's error list (lib/openapi) and of the
// command-line claim's messages: a code added here is documented everywhere it is answered.
import { z } from 'zod';
import type { AppError, ErrorCode } from '../errors';

export const PROBLEMS: Record<ErrorCode, { status: number; title: string; when: string }> = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    when: 'The body is not a JSON object, or a field is missing, mistyped, too long, not base58, the wrong length, or an unknown walletType. `fields` lists each bad field.',
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
  pass_not_found: { status: 404, title: 'Pass not found', when: 'No pass has this id.' },
  google_wallet_not_configured: {
    status: 404,
    title: 'Google Wallet not configured',
    when: 'This service has no Google Wallet issuer configured, so passes have no Save to Google Wallet link.',
  },
  message_already_used: {
    status: 409,
    title: 'Message already used',
    when: 'The message was claimed before; each message claims once. Ask /api/v1/claim/init for a new one.',
  },
  payload_too_large: { status: 413, title: 'Payload too large', when: 'The body is over 16 KiB.' },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    when: 'The body was not sent with Content-Type: application/json.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many requests',
    when: 'Over the per-address limit of claim-path requests (init and claim together). Retry-After says how many seconds to wait.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    when: 'The database does not answer, or this instance is shutting down. Nothing was half-written; retry shortly.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    when: 'A bug. The body carries a requestId that finds the logged details; quote it when reporting.',
  },
};

/** Every problem code, in PROBLEMS order. */
export const PROBLEM_CODES = Object.keys(PROBLEMS) as [ErrorCode, ...ErrorCode[]];

/** The `type` URI of a problem: its entry in the API reference. */
export const problemType = (code: ErrorCode) => `/docs#problem-${code}`;

export const problemSchema = z
  .object({
    type: z.string().meta({ description: 'A reference to this code’s entry in the API reference: /docs#problem-<code>.' }),
    title: z.string().meta({ description: 'A short summary of the code; the same for every instance.' }),
    status: z.number().int().min(400).max(599).meta({ description: 'The HTTP status code.' }),
    detail: z.string().meta({ description: 'What went wrong with this request, for people.' }),
    code: z.enum(PROBLEM_CODES).meta({
      description: 'Stable, machine-readable: branch on this.',
      'x-enumDescriptions': Object.fromEntries(PROBLEM_CODES.map((code) => [code, PROBLEMS[code].when])),
    }),
    fields: z
      .array(z.object({ field: z.string(), message: z.string() }))
      .optional()
      .meta({ description: 'With invalid_request: each bad field (`body` for the body as a whole) and what is wrong with it.' }),
    requestId: z.string().optional().meta({ description: 'With 5xx answers: the id that finds this request in the logs.' }),
  })
  .meta({ id: 'Problem', description: 'An RFC 9457 problem: every error answer has this shape, as application/problem+json.' });

export type Problem = z.infer<typeof problemSchema>;

export function toProblem(error: AppError, requestId?: string): Problem {
  const { status, title } = PROBLEMS[error.code];
  return {
    type: problemType(error.code),
    title,
    status,
    detail: error.detail,
    code: error.code,
    ...(error.extra.fields ? { fields: error.extra.fields } : {}),
    ...(requestId && status >= 500 ? { requestId } : {}),
  };
}

export function problemResponse(error: AppError, requestId?: string): Response {
  const problem = toProblem(error, requestId);
  const headers = new Headers({ 'content-type': 'application/problem+json', 'cache-control': 'no-store' });
  if (error.extra.retryAfterSeconds !== undefined) headers.set('retry-after', String(error.extra.retryAfterSeconds));
  return new Response(JSON.stringify(problem), { status: problem.status, headers });
}
