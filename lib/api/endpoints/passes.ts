// The pass files and the check at the door: the .pkpass download, the Google Wallet link, and the
// scanner check as JSON and as its HTML page.
import { getGoogleSaveUrl, getPassFile, verifyPass } from '../../claims';
import type { AppError } from '../../errors';
import { type Endpoint, endpoint } from '../endpoint';
import { matchesEtag } from '../etag';
import { type VerifyOutcome, verifyPageReply } from '../verify-page';
import { downloadQuerySchema, googleSaveResponseSchema, passCheckSchema, verifyQuerySchema } from './passes.schemas';

export const PASS_ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/download',
    operationId: 'downloadPass',
    tag: 'Passes',
    summary: 'Download a pass file',
    description:
      'The signed Apple Wallet pass (.pkpass) of a `downloadUrl`, as it is now: after a change of the pass ' +
      '(voided, restored) the file is rebuilt and re-signed, with a new ETag and Last-Modified; otherwise ' +
      'its bytes never change, and the ETag answers If-None-Match with 304. `Cache-Control: private`, as ' +
      'the URL is a bearer secret.',
    query: downloadQuerySchema,
    malformedInput: 'pass_not_found',
    requestHeaders: [{ name: 'If-None-Match', description: 'The ETag of a copy you have: 304 if it is current.' }],
    responses: {
      200: {
        description: 'The .pkpass file.',
        file: 'application/vnd.apple.pkpass',
        headers: ['ETag', 'Last-Modified', 'Content-Disposition', 'Cache-Control'],
      },
      304: { description: 'Your copy (If-None-Match) is current.', headers: ['ETag'] },
    },
    problems: ['pass_not_found'],
    handle: async ({ query, headers }, { services }) => {
      const file = await getPassFile(services, query.pass);
      // The URL is a bearer secret: private, so shared caches never keep a copy.
      const validators = { etag: file.etag, 'last-modified': file.lastModified.toUTCString(), 'cache-control': 'private, max-age=0, must-revalidate' };
      if (matchesEtag(headers.get('if-none-match'), file.etag)) return { status: 304, headers: validators };
      return {
        body: file.pkpass,
        headers: {
          ...validators,
          'content-type': 'application/vnd.apple.pkpass',
          'content-disposition': `attachment; filename="${file.filename}"`,
        },
      };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/passes/verify',
    operationId: 'verifyPass',
    tag: 'Passes',
    summary: 'Check a pass at the door',
    description:
      "What this service issued under a pass's public serial number (its QR code carries " +
      '`/verify?serial=<serial>&c=<check-in code>`; a code given must be the serial’s): ' +
      'the wallet address, wallet type and claim time, and whether the pass is valid ' +
      'now (`status`: `active` or `voided`, with `voidReason`). The serial number is public and is not the ' +
      'download id, so it gives no access to the pass file.',
    query: verifyQuerySchema,
    invalidExample: { serial: 'not-a-serial' },
    // Unauthenticated, and each answer for a real serial may enqueue a pass.scanned event: counted
    // against the per-IP budget, before the serial is looked up.
    rateLimited: true,
    responses: {
      200: { description: 'A pass this service issued.', json: passCheckSchema },
    },
    problems: ['invalid_request', 'pass_not_found'],
    handle: async ({ query }, { services }) => ({ json: await verifyPass(services, query.serial, query.c) }),
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/passes/google',
    operationId: 'googleSaveLink',
    tag: 'Passes',
    summary: 'The Save to Google Wallet link of a pass',
    description:
      'The `https://pay.google.com/gp/v/save/<jwt>` link for the pass of a download id (the `pass` of a ' +
      '`downloadUrl`), when the service has a Google Wallet issuer. Keyed by the secret download id, since ' +
      'the link lets anyone save the pass.',
    query: downloadQuerySchema,
    malformedInput: 'pass_not_found',
    // Each link costs an RS256 signature: counted against the claim path's per-IP budget.
    rateLimited: true,
    responses: {
      200: { description: 'The link (under 1,800 characters).', json: googleSaveResponseSchema },
    },
    problems: ['pass_not_found', 'google_wallet_not_configured'],
    handle: async ({ query }, { services }) => ({ json: { saveUrl: await getGoogleSaveUrl(services, query.pass) } }),
  }),
  endpoint({
    method: 'GET',
    path: '/verify',
    operationId: 'verifyPage',
    tag: 'Passes',
    summary: 'The scanner check page',
    description:
      "The page a pass's QR code opens, for staff at a door: whether the pass is genuine and valid " +
      '(green), issued here but voided (red, "Voided"), or not issued here (red), with its wallet address, ' +
      'wallet type and claim time. HTML, no script. The same as JSON: `GET /api/v1/passes/verify`.',
    query: verifyQuerySchema,
    // As the JSON check: the same per-IP budget.
    rateLimited: true,
    responses: {
      200: { description: 'Issued by this service: genuine and valid, or voided (shown in red, never as valid).', file: 'text/html' },
      404: { description: 'Not issued here: an unknown, malformed or missing serial.', file: 'text/html' },
      429: {
        description: 'Too many checks from this client (RATE_LIMIT_PER_MINUTE): scan again after Retry-After seconds.',
        file: 'text/html',
        headers: ['Retry-After'],
      },
      503: { description: 'Cannot check right now: the database does not answer.', file: 'text/html' },
    },
    problems: [],
    page: {
      answerError: (error) => verifyPageReply(pageOutcomeOf(error)),
    },
    handle: async ({ query }, { services }) => verifyPageReply({ kind: 'genuine', check: await verifyPass(services, query.serial, query.c) }),
  }),
];

/** The page for a failed check: not issued here, checked too often, or cannot check now. */
function pageOutcomeOf(error: AppError): VerifyOutcome {
  if (error.code === 'pass_not_found' || error.code === 'invalid_request') return { kind: 'not_issued' };
  if (error.code === 'rate_limited') return { kind: 'too_many', retryAfterSeconds: error.extra.retryAfterSeconds ?? 60 };
  return { kind: 'unavailable', status: error.code === 'service_unavailable' ? 503 : 500 };
}
