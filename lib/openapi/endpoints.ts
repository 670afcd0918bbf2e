// Every route the app serves, registered once for the API reference. Adding an endpoint is one
// entry here, naming the zod schemas its handler uses and the problem codes it answers with;
// test/contract/openapi.test.ts fails for a route under app/ that has no entry.
import { z } from 'zod';
import { MAX_BODY_BYTES } from '../http/body';
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
import { buildOpenApiDocument, type EndpointDoc } from './document';
import { EXAMPLE_CLAIM_REQUEST, EXAMPLE_CLAIM_RESPONSE, EXAMPLE_INIT_RESPONSE } from './examples';

/** The version of the v1 contract this document describes; additive changes bump the minor. */
export const API_VERSION = '1.0.0';

const openApiDocumentSchema = z
  .looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document: this one.' });

export const ENDPOINTS: EndpointDoc[] = [
  {
    method: 'get',
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
  },
  {
    method: 'post',
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
  },
  {
    method: 'get',
    path: '/download',
    operationId: 'downloadPass',
    tag: 'Passes',
    summary: 'Download a pass file',
    description:
      'The signed Apple Wallet pass (.pkpass) of a `downloadUrl`. Its bytes never change: the ETag answers If-None-Match with 304. `Cache-Control: private`, as the URL is a bearer secret.',
    query: downloadQuerySchema,
    requestHeaders: [{ name: 'If-None-Match', description: 'The ETag of a copy you have: 304 if it is current.' }],
    responses: {
      200: { description: 'The .pkpass file.', file: 'application/vnd.apple.pkpass', headers: ['ETag', 'Content-Disposition', 'Cache-Control'] },
      304: { description: 'Your copy (If-None-Match) is current.', headers: ['ETag'] },
    },
    problems: ['pass_not_found'],
  },
  {
    method: 'get',
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
  },
  {
    method: 'get',
    path: '/api/v1/passes/google',
    operationId: 'googleSaveLink',
    tag: 'Passes',
    summary: 'The Save to Google Wallet link of a pass',
    description:
      'The `https://pay.google.com/gp/v/save/<jwt>` link for the pass of a download id (the `pass` of a `downloadUrl`), when the service has a Google Wallet issuer. Keyed by the secret download id, since the link lets anyone save the pass.',
    query: downloadQuerySchema,
    responses: {
      200: { description: 'The link (under 1,800 characters).', json: googleSaveResponseSchema },
    },
    problems: ['pass_not_found', 'google_wallet_not_configured'],
  },
  {
    method: 'get',
    path: '/verify',
    operationId: 'verifyPage',
    tag: 'Passes',
    summary: 'The scanner check page',
    description:
      "The page a pass's QR code opens, for staff at a door: whether the pass is genuine and issued here, with its wallet address, wallet type and claim time. HTML, no script. The same as JSON: `GET /api/v1/passes/verify`.",
    query: verifyQuerySchema,
    page: true,
    responses: {
      200: { description: 'Genuine pass: issued by this service.', file: 'text/html' },
      404: { description: 'Not issued here: an unknown, malformed or missing serial.', file: 'text/html' },
      503: { description: 'Cannot check right now: the database does not answer.', file: 'text/html' },
    },
    problems: [],
  },
  {
    method: 'get',
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
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'openApiDocument',
    tag: 'Service',
    summary: 'This API description',
    description: 'This document, OpenAPI 3.1, generated from the schemas the handlers validate with. Its server is PUBLIC_BASE_URL.',
    responses: { 200: { description: 'The document.', json: openApiDocumentSchema } },
    problems: [],
  },
];

const INTRODUCTION = `
A person proves control of a Solana wallet by signing one message, and gets an Apple Wallet pass for it.

## The flow

1. \`GET /api/v1/claim/init?publicKey=<address>\` answers a single-use Sign In With Solana \`message\`.
2. Sign the UTF-8 bytes of \`message\` with the wallet's Ed25519 key: a wallet's \`signMessage\`, or \`solana:signIn\` with the other fields of the answer.
3. \`POST /api/v1/claim/wallet-pass\` with \`message\`, \`signature\` (base58), \`publicKey\` and \`walletType\` answers a \`downloadUrl\`: 201 for a new pass, 200 when the wallet already has one.
4. \`GET\` the \`downloadUrl\` for the .pkpass file.

From a terminal, \`npm run claim -- --keypair ~/.config/solana/id.json\` does all four with a Solana CLI keypair (see the README). \`lib/client\` is a typed client for browsers and Node.

Every path answers CORS preflights and allows any origin (no cookies are used). Every answer carries an \`X-Request-Id\`. Init and claim share a per-address budget of \`RATE_LIMIT_PER_MINUTE\` requests.
`;

/** The document, built once per server URL (it depends on nothing else). */
const built = new Map<string | undefined, ReturnType<typeof buildOpenApiDocument>>();

export function openApiDocument(serverUrl?: string) {
  let document = built.get(serverUrl);
  if (!document) {
    document = buildOpenApiDocument({ serverUrl, version: API_VERSION, endpoints: ENDPOINTS, introduction: INTRODUCTION });
    built.set(serverUrl, document);
  }
  return document;
}
