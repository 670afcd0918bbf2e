// The one place where error codes become HTTP: RFC 9457 problem+json with a stable `code`.
import type { AppError, ErrorCode } from '../errors';

export const PROBLEMS: Record<ErrorCode, { status: number; title: string }> = {
  invalid_request: { status: 400, title: 'Invalid request' },
  message_not_issued: { status: 401, title: 'Message not issued by this service' },
  message_expired: { status: 401, title: 'Message expired' },
  signature_invalid: { status: 401, title: 'Signature invalid' },
  pass_not_found: { status: 404, title: 'Pass not found' },
  google_wallet_not_configured: { status: 404, title: 'Google Wallet not configured' },
  message_already_used: { status: 409, title: 'Message already used' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  rate_limited: { status: 429, title: 'Too many requests' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  internal_error: { status: 500, title: 'Internal error' },
};

export type Problem = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  fields?: { field: string; message: string }[];
  requestId?: string;
};

/** The `type` URI of a problem: its entry in the API reference. */
export const problemType = (code: ErrorCode) => `/docs#problem-${code}`;

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
