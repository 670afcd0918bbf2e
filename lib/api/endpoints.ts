// The API, one entry per endpoint: method and path, the schemas of its input and answers, the
// problem codes it answers with, whether it is rate limited, and a handler that calls one lib/
// function. Everything else derives from this table: the custom server's dispatch and the Next.js
// route handlers (./frame.ts), the CORS preflights, the OpenAPI document (./openapi.ts), the test
// harness and the benchmark. Adding an endpoint is one entry here, its lib/ function, and its
// two-line file under app/ (so that `next dev` serves it too).
import { z } from 'zod';
import { renderVerifyPage, type VerifyOutcome } from '../../components/verify/verify-page';
import { claimWalletPass, getGoogleSaveUrl, getPassFile, issueMessage, verifyPass } from '../claims';
import { checkHealth } from '../health';
import {
  claimBodySchema,
  claimResponseSchema,
  downloadQuerySchema,
  googleSaveResponseSchema,
  healthResponseSchema,
  initQuerySchema,
  initResponseSchema,
  passCheckSchema,
  verifyQuerySchema,
} from '../schemas';
import { MAX_BODY_BYTES } from './body';
import { endpoint, type Endpoint, type Reply } from './endpoint';
import { Router } from './router';
import { EXAMPLE_CLAIM_REQUEST, EXAMPLE_CLAIM_RESPONSE, EXAMPLE_INIT_RESPONSE } from './examples';
import { buildOpenApiDocument } from './openapi';

/** The version of the v1 contract the document describes; additive changes bump the minor. */
export const API_VERSION = '1.0.0';

const openApiDocumentSchema = z
  .looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document: this one.' });

export const ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/api/v1/claim/init',
    operationId: 'initClaim',
    tag: 'Claim',
    summary: 'Issue a sign-in message',
    description:
      'Issues a single-use Sign In With Solana message for the wallet. The message is stored: it survives a restart, is valid on every instance, and issuing another never cancels it. Sign the UTF-8 bytes of `message`, then claim within `expirationTime`.',
    query: initQuerySchema,
    invalidExample: { publicKey: 'not-a-key' },
    rateLimited: true,
    responses: {
      200: { description: 'The message to sign, and its fields.', json: initResponseSchema, example: EXAMPLE_INIT_RESPONSE, headers: ['Cache-Control'] },
    },
    problems: ['invalid_request'],
    handle: async ({ query }, { services }) => ({ json: await issueMessage(services, query.publicKey) }),
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/claim/wallet-pass',
    operationId: 'claimWalletPass',
    tag: 'Claim',
    summary: 'Claim the wallet’s pass with a signed message',
    description: `Redeems a signed message for the wallet's pass. The body is JSON (Content-Type: application/json), at most ${MAX_BODY_BYTES / 1024} KiB. The message must be one this service issued for \`publicKey\`, unexpired and unused, and \`signature\` must verify for it. Each message claims once; one wallet has one pass.`,
    body: { schema: claimBodySchema, example: EXAMPLE_CLAIM_REQUEST },
    invalidExample: { message: '', signature: 'not base58', publicKey: EXAMPLE_CLAIM_REQUEST.publicKey, walletType: 'Backpack' },
    rateLimited: true,
    responses: {
      200: { description: 'The wallet already had a pass: its URL (the same every time). The message is used up.', json: claimResponseSchema, example: EXAMPLE_CLAIM_RESPONSE },
      201: { description: 'A pass was created for the wallet.', json: claimResponseSchema, example: EXAMPLE_CLAIM_RESPONSE },
    },
    problems: ['invalid_request', 'message_not_issued', 'message_expired', 'signature_invalid', 'message_already_used', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ body }, { services }) => {
      const { created, downloadUrl } = await claimWalletPass(services, body);
      return { status: created ? 201 : 200, json: { downloadUrl } };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/download',
    operationId: 'downloadPass',
    tag: 'Passes',
    summary: 'Download a pass file',
    description:
      'The signed Apple Wallet pass (.pkpass) of a `downloadUrl`. Its bytes never change: the ETag answers If-None-Match with 304. `Cache-Control: private`, as the URL is a bearer secret.',
    query: downloadQuerySchema,
    malformedInput: 'pass_not_found',
    requestHeaders: [{ name: 'If-None-Match', description: 'The ETag of a copy you have: 304 if it is current.' }],
    responses: {
      200: { description: 'The .pkpass file.', file: 'application/vnd.apple.pkpass', headers: ['ETag', 'Content-Disposition', 'Cache-Control'] },
      304: { description: 'Your copy (If-None-Match) is current.', headers: ['ETag'] },
    },
    problems: ['pass_not_found'],
    handle: async ({ query, headers }, { services }) => {
      const file = await getPassFile(services, query.pass);
      // The URL is a bearer secret: private, so shared caches never keep a copy.
      const validators = { etag: file.etag, 'cache-control': 'private, max-age=0, must-revalidate' };
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
      "What this service issued under a pass's public serial number (its QR code carries `/verify?serial=`): the wallet address, wallet type and claim time. The serial number is public and is not the download id, so it gives no access to the pass file.",
    query: verifyQuerySchema,
    invalidExample: { serial: 'not-a-serial' },
    responses: {
      200: { description: 'A pass this service issued.', json: passCheckSchema },
    },
    problems: ['invalid_request', 'pass_not_found'],
    handle: async ({ query }, { services }) => ({ json: await verifyPass(services, query.serial) }),
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/passes/google',
    operationId: 'googleSaveLink',
    tag: 'Passes',
    summary: 'The Save to Google Wallet link of a pass',
    description:
      'The `https://pay.google.com/gp/v/save/<jwt>` link for the pass of a download id (the `pass` of a `downloadUrl`), when the service has a Google Wallet issuer. Keyed by the secret download id, since the link lets anyone save the pass.',
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
      "The page a pass's QR code opens, for staff at a door: whether the pass is genuine and issued here, with its wallet address, wallet type and claim time. HTML, no script. The same as JSON: `GET /api/v1/passes/verify`.",
    query: verifyQuerySchema,
    responses: {
      200: { description: 'Genuine pass: issued by this service.', file: 'text/html' },
      404: { description: 'Not issued here: an unknown, malformed or missing serial.', file: 'text/html' },
      503: { description: 'Cannot check right now: the database does not answer.', file: 'text/html' },
    },
    problems: [],
    page: {
      answerError: (error) =>
        verifyPageReply(
          error.code === 'pass_not_found' || error.code === 'invalid_request'
            ? { kind: 'not_issued' }
            : { kind: 'unavailable', status: error.code === 'service_unavailable' ? 503 : 500 },
        ),
    },
    handle: async ({ query }, { services }) => verifyPageReply({ kind: 'genuine', check: await verifyPass(services, query.serial) }),
  }),
  endpoint({
    method: 'GET',
    path: '/health',
    operationId: 'health',
    tag: 'Service',
    summary: 'Health',
    description: 'Whether the service and its database answer. Not cached.',
    responses: {
      200: { description: 'The service and its database answer.', json: healthResponseSchema, example: { status: 'healthy' } },
      503: { description: 'The database does not answer.', json: healthResponseSchema, example: { status: 'unhealthy' } },
    },
    problems: [],
    handle: async (_, { services }) => {
      const health = await checkHealth(services);
      return { status: health.status === 'healthy' ? 200 : 503, json: health };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/openapi.json',
    operationId: 'openApiDocument',
    tag: 'Service',
    summary: 'This API description',
    description: 'This document, OpenAPI 3.1, generated from the schemas the handlers validate with. Its server is PUBLIC_BASE_URL.',
    responses: { 200: { description: 'The document.', json: openApiDocumentSchema } },
    problems: [],
    handle: (_, { services }) => ({ json: openApiDocument(services.config.publicBaseUrl), headers: { 'cache-control': 'public, max-age=300' } }),
  }),
];

const router = new Router(ENDPOINTS);

/** Whether the table answers at `pathname`: the custom server sends these to the API, all else to the pages. */
export const isApiPath = (pathname: string): boolean => router.match(pathname) !== undefined;

/** If-None-Match against our strong ETag (a weak comparison, as RFC 9110 asks for GET). */
function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

function verifyPageReply(outcome: VerifyOutcome): Reply {
  const page = renderVerifyPage(outcome);
  return {
    status: page.status,
    body: page.html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': page.contentSecurityPolicy,
      'x-robots-tag': 'noindex',
    },
  };
}

/** The document, built once per server URL (it depends on nothing else). */
const documents = new Map<string | undefined, ReturnType<typeof buildOpenApiDocument>>();

export function openApiDocument(serverUrl?: string) {
  let document = documents.get(serverUrl);
  if (!document) documents.set(serverUrl, (document = buildOpenApiDocument({ serverUrl, version: API_VERSION, endpoints: ENDPOINTS })));
  return document;
}
