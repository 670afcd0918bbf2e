// The API, one entry per endpoint: method and path, the schemas of its input and answers, the
// problem codes it answers with, whether it is rate limited, and a handler that calls one lib/
// function. Everything else derives from this table: the custom server's dispatch and the Next.js
// route handlers (./frame.ts), the CORS preflights, the OpenAPI document (./openapi.ts), the test
// harness and the benchmark. Adding an endpoint is one entry here, its lib/ function, and its
// two-line file under app/ (so that `next dev` serves it too).
import { z } from 'zod';
import { renderVerifyPage, type VerifyOutcome } from '../../components/verify/verify-page';
import { eligibilityStatus } from '../eligibility/recheck';
import { eligibilityStatusSchema } from '../eligibility/schemas';
import { claimWalletPass, getGoogleSaveUrl, getPassFile, issueMessage, verifyPass } from '../claims';
import { checkHealth } from '../health';
import { latestPass, recordDeviceLogs, registerDevice, unregisterDevice, updatedSerials } from '../passes/web-service';
import {
  deviceParamsSchema,
  logsBodySchema,
  passParamsSchema,
  pushTokenBodySchema,
  registrationParamsSchema,
  serialNumbersSchema,
  updatedSinceQuerySchema,
} from './passkit-schemas';
import { createApiKey, deleteApiKey, getApiKeys } from '../operators/api-keys';
import { fromOwnOriginOrNoBrowser, sessionCookie } from '../operators/auth';
import { EXAMPLE_API_KEY, EXAMPLE_OPERATOR_INIT_RESPONSE, EXAMPLE_PASS, EXAMPLE_SESSION_REQUEST, EXAMPLE_SESSION_RESPONSE } from '../operators/examples';
import { getOperatorPass, getStats, listOperatorPasses } from '../operators/passes';
import {
  apiKeyCreatedSchema,
  apiKeyCreateSchema,
  apiKeyJson,
  apiKeyListSchema,
  apiKeyParamsSchema,
  currentOperatorSchema,
  deliveriesQuerySchema,
  deliveryJson,
  deliveryPageSchema,
  deliveryParamsSchema,
  deliverySchema,
  operatorPassSchema,
  passesQuerySchema,
  passJson,
  passPageSchema,
  serialParamsSchema,
  sessionBodySchema,
  sessionResponseSchema,
  statsSchema,
  voidBodySchema,
  passDatesBodySchema,
} from '../operators/schemas';
import { createOperatorSession, endSession, issueOperatorMessage, SESSION_TTL_SECONDS } from '../operators/sessions';
import { restorePass, updatePassDates, voidPass } from '../passes/lifecycle';
import { getDeliveries, retryWebhookDelivery } from '../webhooks/deliveries';
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
    problems: ['invalid_request', 'not_eligible'],
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
    problems: ['invalid_request', 'message_not_issued', 'message_expired', 'signature_invalid', 'not_eligible', 'message_already_used', 'payload_too_large', 'unsupported_media_type'],
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
      'The signed Apple Wallet pass (.pkpass) of a `downloadUrl`, as it is now: after a change of the pass (voided, restored) the file is rebuilt and re-signed, with a new ETag and Last-Modified; otherwise its bytes never change, and the ETag answers If-None-Match with 304. `Cache-Control: private`, as the URL is a bearer secret.',
    query: downloadQuerySchema,
    malformedInput: 'pass_not_found',
    requestHeaders: [{ name: 'If-None-Match', description: 'The ETag of a copy you have: 304 if it is current.' }],
    responses: {
      200: { description: 'The .pkpass file.', file: 'application/vnd.apple.pkpass', headers: ['ETag', 'Last-Modified', 'Content-Disposition', 'Cache-Control'] },
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
      "What this service issued under a pass's public serial number (its QR code carries `/verify?serial=`): the wallet address, wallet type and claim time, and whether the pass is valid now (`status`: `active` or `voided`, with `voidReason`). The serial number is public and is not the download id, so it gives no access to the pass file.",
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
      "The page a pass's QR code opens, for staff at a door: whether the pass is genuine and valid (green), issued here but voided (red, \"Voided\"), or not issued here (red), with its wallet address, wallet type and claim time. HTML, no script. The same as JSON: `GET /api/v1/passes/verify`.",
    query: verifyQuerySchema,
    responses: {
      200: { description: 'Issued by this service: genuine and valid, or voided (shown in red, never as valid).', file: 'text/html' },
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
  // ---- Operators (docs/operators.md): sign-in, passes, statistics, API keys, webhook deliveries ----
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/sessions/init',
    operationId: 'initOperatorSession',
    tag: 'Operators',
    summary: 'Issue an operator sign-in message',
    description:
      'The same answer as `/api/v1/claim/init`, for an operator session: its statement says so, and it can only open a session (a claim refuses it, and this sign-in refuses a claim’s message). Never gated by CLAIM_POLICY; whether the wallet is an operator is told only after it signs.',
    query: initQuerySchema,
    invalidExample: { publicKey: 'not-a-key' },
    rateLimited: true,
    responses: {
      200: { description: 'The message to sign, and its fields.', json: initResponseSchema, example: EXAMPLE_OPERATOR_INIT_RESPONSE, headers: ['Cache-Control'] },
    },
    problems: ['invalid_request'],
    handle: async ({ query }, { services }) => ({ json: await issueOperatorMessage(services, query.publicKey) }),
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/operator/sessions',
    operationId: 'createOperatorSession',
    tag: 'Operators',
    summary: 'Sign in as an operator',
    description: `Opens a session for a signed operator message: \`token\` is a bearer token for the other operator endpoints, valid ${SESSION_TTL_SECONDS / 3600} hours. A request from this service’s own pages (its Origin) also gets the session as an HttpOnly, SameSite=Strict cookie for the console. The wallet must be in OPERATOR_WALLETS (403 forbidden otherwise, told only after the signature verifies).`,
    body: { schema: sessionBodySchema, example: EXAMPLE_SESSION_REQUEST },
    rateLimited: true,
    responses: {
      201: { description: 'Signed in.', json: sessionResponseSchema, example: EXAMPLE_SESSION_RESPONSE, headers: ['Set-Cookie'] },
    },
    problems: ['invalid_request', 'message_not_issued', 'message_expired', 'signature_invalid', 'forbidden', 'message_already_used', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ body, headers }, { services }) => {
      const session = await createOperatorSession(services, body);
      return {
        status: 201,
        json: { token: session.token, expiresAt: session.expiresAt.toISOString() },
        headers: fromOwnOriginOrNoBrowser(services, { headers }) ? { 'set-cookie': sessionCookie(services, session.token, SESSION_TTL_SECONDS) } : ({} as Record<string, string>),
      };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/sessions/current',
    operationId: 'currentOperator',
    tag: 'Operators',
    summary: 'Who is signed in',
    description: 'The operator behind the credential, and when its session ends. The console asks it to know whether it is signed in.',
    auth: 'operator',
    responses: { 200: { description: 'Signed in.', json: currentOperatorSchema } },
    problems: [],
    handle: (_, { operator }) => ({ json: { publicKey: operator!.publicKey, via: operator!.via, expiresAt: operator!.expiresAt?.toISOString() ?? null } }),
  }),
  endpoint({
    method: 'DELETE',
    path: '/api/v1/operator/sessions/current',
    operationId: 'signOut',
    tag: 'Operators',
    summary: 'Sign out',
    description: 'Ends the session of the token (or cookie) at once, everywhere, and clears the cookie. An API key is not a session: revoke it with `DELETE /api/v1/operator/api-keys/{id}` (this answers 403 for one).',
    auth: 'operator',
    responses: { 204: { description: 'Signed out.', headers: ['Set-Cookie'] } },
    problems: [],
    handle: async (_, { services, operator }) => {
      await endSession(services, operator!);
      return { status: 204, headers: { 'set-cookie': sessionCookie(services, '', 0) } };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/operator/api-keys',
    operationId: 'createApiKey',
    tag: 'Operators',
    summary: 'Create an API key',
    description:
      'A long-lived bearer token for automation: `key` is shown in this answer only (the service keeps its SHA-256). It acts for the operator who created it, until revoked or until that wallet leaves OPERATOR_WALLETS. The body (a `name`) is optional.',
    auth: 'operator',
    body: { schema: apiKeyCreateSchema, example: { name: 'nightly export' }, optional: true },
    invalidExample: { name: '' },
    responses: { 201: { description: 'The key, this once.', json: apiKeyCreatedSchema, example: { ...EXAMPLE_API_KEY, key: 'wpck_Jx0yH1m8Zt5Lr7Vk9Hs4Jd2Pn6Ag0Ue1To7Ri3Ew3q2' } } },
    problems: ['invalid_request', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ body }, { services, operator }) => {
      const created = await createApiKey(services, operator!, body.name);
      return { status: 201, json: { ...apiKeyJson(created), key: created.key } };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/api-keys',
    operationId: 'listApiKeys',
    tag: 'Operators',
    summary: 'List API keys',
    description: 'The keys not revoked, newest first: ids, names, creators, creation and last use. Never the keys.',
    auth: 'operator',
    responses: { 200: { description: 'The keys.', json: apiKeyListSchema, example: { apiKeys: [EXAMPLE_API_KEY] } } },
    problems: [],
    handle: async (_, { services }) => ({ json: { apiKeys: (await getApiKeys(services)).map(apiKeyJson) } }),
  }),
  endpoint({
    method: 'DELETE',
    path: '/api/v1/operator/api-keys/{id}',
    operationId: 'revokeApiKey',
    tag: 'Operators',
    summary: 'Revoke an API key',
    description: 'The key stops working at once. Revoking a revoked key again is no error.',
    auth: 'operator',
    params: apiKeyParamsSchema,
    responses: { 204: { description: 'Revoked.' } },
    problems: ['api_key_not_found'],
    malformedInput: 'api_key_not_found',
    handle: async ({ params }, { services, operator }) => {
      await deleteApiKey(services, operator!, params.id);
      return { status: 204 };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/passes',
    operationId: 'listPasses',
    tag: 'Operators',
    summary: 'List passes',
    description:
      'Passes, newest claim first, optionally only those of one wallet (`publicKey`), one serial (`serial`) or one state (`status`). Pages by `cursor` (opaque: pass back `nextCursor`) of `limit` passes; the order is stable, so paging while passes are claimed neither repeats nor skips one.',
    auth: 'operator',
    query: passesQuerySchema,
    invalidExample: { status: 'lost' },
    responses: { 200: { description: 'A page of passes.', json: passPageSchema, example: { passes: [EXAMPLE_PASS], nextCursor: null } } },
    problems: ['invalid_request'],
    handle: async ({ query }, { services }) => {
      const page = await listOperatorPasses(services, { ...query, limit: query.limit ?? 50 });
      return { json: { passes: page.passes.map(passJson), nextCursor: page.nextCursor } };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/passes/{serialNumber}',
    operationId: 'getPass',
    tag: 'Operators',
    summary: 'One pass',
    description: 'The pass with this serial number.',
    auth: 'operator',
    params: serialParamsSchema,
    malformedInput: 'pass_not_found',
    responses: { 200: { description: 'The pass.', json: operatorPassSchema, example: EXAMPLE_PASS } },
    problems: ['pass_not_found'],
    handle: async ({ params }, { services }) => ({ json: passJson(await getOperatorPass(services, params.serialNumber)) }),
  }),
  endpoint({
    method: 'PATCH',
    path: '/api/v1/operator/passes/{serialNumber}',
    operationId: 'updatePassDates',
    tag: 'Operators',
    summary: 'Set or clear a pass’s dates',
    description:
      'Sets `expirationDate` (after it, Apple Wallet and Google Wallet show the pass as expired and the scanner check refuses it) and `relevantDate` (when Apple Wallet brings the pass to the lock screen). A field given as null is removed, a field left out stays as it is. A change moves `updatedAt`, rebuilds the pass, pushes registered devices, updates the Google Wallet object and sends a `pass.updated` webhook; dates the pass already has change nothing.',
    auth: 'operator',
    params: serialParamsSchema,
    body: { schema: passDatesBodySchema, example: { expirationDate: '2026-12-31T23:00:00Z', relevantDate: null } },
    invalidExample: { expirationDate: '31/12/2026' },
    responses: { 200: { description: 'The pass, with its dates.', json: operatorPassSchema, example: { ...EXAMPLE_PASS, status: 'active', voidReason: null, expirationDate: '2026-12-31T23:00:00.000Z' } } },
    problems: ['invalid_request', 'pass_not_found', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ params, body }, { services, operator }) => {
      const { pass, changed } = await updatePassDates(services, params.serialNumber, body);
      if (changed) services.log.info({ event: 'operator_updated_pass', serial: pass.serialNumber, by: operator!.publicKey }, 'operator changed the dates of a pass');
      return { json: passJson(pass) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/operator/passes/{serialNumber}/void',
    operationId: 'voidPass',
    tag: 'Operators',
    summary: 'Void a pass',
    description:
      'Marks the pass voided with a reason: its `updatedAt` moves, the next download says `"voided": true`, registered devices are pushed the change, and a `pass.voided` webhook is sent. Voiding it again with the same reason changes nothing; with another reason, the reason is replaced.',
    auth: 'operator',
    params: serialParamsSchema,
    body: { schema: voidBodySchema, example: { reason: 'ticket refunded' } },
    invalidExample: { reason: '' },
    responses: { 200: { description: 'The pass, voided.', json: operatorPassSchema, example: EXAMPLE_PASS } },
    problems: ['invalid_request', 'pass_not_found', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ params, body }, { services, operator }) => {
      const { pass, changed } = await voidPass(services, params.serialNumber, body.reason);
      if (changed) services.log.info({ event: 'operator_voided_pass', serial: pass.serialNumber, by: operator!.publicKey }, 'operator voided a pass');
      return { json: passJson(pass) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/operator/passes/{serialNumber}/restore',
    operationId: 'restorePass',
    tag: 'Operators',
    summary: 'Restore a voided pass',
    description: 'Makes a voided pass active again (its reason cleared), with the same updates as a void and a `pass.restored` webhook. Restoring an active pass changes nothing. No body.',
    auth: 'operator',
    params: serialParamsSchema,
    malformedInput: 'pass_not_found',
    responses: { 200: { description: 'The pass, active.', json: operatorPassSchema, example: { ...EXAMPLE_PASS, status: 'active', voidReason: null } } },
    problems: ['pass_not_found'],
    handle: async ({ params }, { services, operator }) => {
      const { pass, changed } = await restorePass(services, params.serialNumber);
      if (changed) services.log.info({ event: 'operator_restored_pass', serial: pass.serialNumber, by: operator!.publicKey }, 'operator restored a pass');
      return { json: passJson(pass) };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/stats',
    operationId: 'operatorStats',
    tag: 'Operators',
    summary: 'Statistics',
    description: 'How many passes, active and voided, device registrations, and claims on each of the last 30 days (UTC; every day listed, zeros included, today last).',
    auth: 'operator',
    responses: { 200: { description: 'The numbers.', json: statsSchema } },
    problems: [],
    handle: async (_, { services }) => ({ json: await getStats(services) }),
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/webhooks/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'List webhook deliveries',
    description:
      'Every event sent (or to be sent) to WEBHOOK_URL, newest first, with its state, attempts, last error and next attempt. A failing delivery is retried with exponential backoff (10 s, doubling, at most an hour apart) for 24 hours, across restarts, by one instance; then it is `failed`. Kept 7 days once delivered, 30 days once failed. Pages like the pass list.',
    auth: 'operator',
    query: deliveriesQuerySchema,
    invalidExample: { status: 'lost' },
    responses: { 200: { description: 'A page of deliveries.', json: deliveryPageSchema } },
    problems: ['invalid_request'],
    handle: async ({ query }, { services }) => {
      const page = await getDeliveries(services, { ...query, limit: query.limit ?? 50 });
      return { json: { deliveries: page.deliveries.map(deliveryJson), nextCursor: page.nextCursor } };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/operator/webhooks/deliveries/{id}/retry',
    operationId: 'retryWebhookDelivery',
    tag: 'Webhooks',
    summary: 'Retry a webhook delivery now',
    description:
      'Makes the delivery due at once: a failed one is tried again (with one more day of retries only if it is younger than 24 hours), a pending one is not kept waiting for its backoff, and a delivered one is sent again with the same `webhook-id`. One being sent at this moment is left to that attempt. No body.',
    auth: 'operator',
    params: deliveryParamsSchema,
    malformedInput: 'delivery_not_found',
    responses: { 200: { description: 'The delivery, due now.', json: deliverySchema } },
    problems: ['delivery_not_found'],
    handle: async ({ params }, { services }) => ({ json: deliveryJson(await retryWebhookDelivery(services, params.id)) }),
  }),
  // ---- Living passes: Apple's PassKit web service (docs/living-passes.md) ----
  endpoint({
    method: 'POST',
    path: '/passkit/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}/{serialNumber}',
    operationId: 'passkitRegisterDevice',
    tag: 'PassKit',
    summary: 'Register a device for a pass’s updates',
    description:
      "Wallet calls this when a pass is added: the device's push token is kept, and every change of the pass sends it an APNs push. Needs `Authorization: ApplePass <authenticationToken>` (the token in the pass's pass.json). Registering again answers 200 and keeps one registration (with the newest push token).",
    params: registrationParamsSchema,
    body: { schema: pushTokenBodySchema, example: { pushToken: '8a9b7c6d5e4f30211f2e3d4c5b6a79880a9b8c7d6e5f40312f1e0d3c4b5a6978' } },
    requestHeaders: [{ name: 'Authorization', description: '`ApplePass <authenticationToken>`' }],
    responses: {
      200: { description: 'The device was already registered for this pass.' },
      201: { description: 'Registered.' },
    },
    problems: ['invalid_request', 'unauthorized', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ params, body, headers }, { services }) => {
      const { created } = await registerDevice(services, params, body.pushToken, headers.get('authorization'));
      return { status: created ? 201 : 200 };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/passkit/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}/{serialNumber}',
    operationId: 'passkitUnregisterDevice',
    tag: 'PassKit',
    summary: 'Unregister a device from a pass’s updates',
    description: 'Wallet calls this when the pass is removed from the device. Needs `Authorization: ApplePass <authenticationToken>`. 200 whether or not the device was registered.',
    params: registrationParamsSchema,
    requestHeaders: [{ name: 'Authorization', description: '`ApplePass <authenticationToken>`' }],
    responses: { 200: { description: 'Not registered (any more).' } },
    problems: ['invalid_request', 'unauthorized'],
    handle: async ({ params, headers }, { services }) => {
      await unregisterDevice(services, params, headers.get('authorization'));
      return { status: 200 };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/passkit/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}',
    operationId: 'passkitUpdatedSerials',
    tag: 'PassKit',
    summary: 'The serial numbers of a device’s passes that changed',
    description:
      'After a push, Wallet asks which of the passes this device registered changed since the tag it was given last time (`passesUpdatedSince`), then fetches each. Every pass changed after the tag is listed; without the tag, all of them. 204 when none.',
    params: deviceParamsSchema,
    query: updatedSinceQuerySchema,
    responses: {
      200: { description: 'Passes changed after the tag, and the next tag.', json: serialNumbersSchema },
      204: { description: 'No pass of this device changed after the tag.' },
    },
    problems: ['invalid_request'],
    handle: async ({ params, query }, { services }) => {
      const updated = await updatedSerials(services, params.deviceLibraryIdentifier, params.passTypeIdentifier, query.passesUpdatedSince);
      return updated ? { json: updated } : { status: 204, headers: { 'cache-control': 'no-store' } };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/passkit/v1/passes/{passTypeIdentifier}/{serialNumber}',
    operationId: 'passkitLatestPass',
    tag: 'PassKit',
    summary: 'The latest version of a pass',
    description:
      'The current signed .pkpass, rebuilt after every change (a voided pass says `"voided": true`). Needs `Authorization: ApplePass <authenticationToken>`. `If-Modified-Since` at or after `Last-Modified`: 304.',
    params: passParamsSchema,
    requestHeaders: [
      { name: 'Authorization', description: '`ApplePass <authenticationToken>`' },
      { name: 'If-Modified-Since', description: 'The Last-Modified of the copy the device has: 304 if the pass has not changed since.' },
    ],
    responses: {
      200: { description: 'The .pkpass file.', file: 'application/vnd.apple.pkpass', headers: ['Last-Modified', 'ETag', 'Cache-Control'] },
      304: { description: 'Not changed since If-Modified-Since.', headers: ['Last-Modified'] },
    },
    problems: ['invalid_request', 'unauthorized'],
    handle: async ({ params, headers }, { services }): Promise<Reply> => {
      const latest = await latestPass(services, params.passTypeIdentifier, params.serialNumber, headers.get('authorization'), headers.get('if-modified-since'));
      if (latest.kind === 'not_modified') {
        return { status: 304, headers: { 'last-modified': latest.lastModified.toUTCString(), 'cache-control': 'no-cache' } };
      }
      return {
        body: latest.file.pkpass,
        headers: {
          'content-type': 'application/vnd.apple.pkpass',
          'last-modified': latest.file.lastModified.toUTCString(),
          etag: latest.file.etag,
          'cache-control': 'no-cache',
        },
      };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/passkit/v1/log',
    operationId: 'passkitLog',
    tag: 'PassKit',
    summary: 'Wallet’s error reports',
    description: 'Wallet reports problems it met with this web service; they are written to the service log (at most 20 entries of 1,000 characters per request).',
    body: { schema: logsBodySchema, example: { logs: ['Web service error for pass.example: Response to GET was not a valid pass.'] } },
    responses: { 200: { description: 'Logged.' } },
    problems: ['invalid_request', 'payload_too_large', 'unsupported_media_type'],
    handle: ({ body }, { services }) => {
      recordDeviceLogs(services, body.logs);
      return { status: 200 };
    },
  }),
  // --- Who may claim (CLAIM_POLICY): what the console shows -------------------------------------
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/eligibility',
    operationId: 'operatorEligibility',
    tag: 'Operators',
    summary: 'Claim policy and re-checks',
    description:
      'The claim policy (CLAIM_POLICY) as rules, each allowlist given only as how many addresses it holds, and the last re-check round: when it ran, how many passes it checked, voided (reason `not_eligible`) and restored, and why it stopped if the Solana RPC did not answer. Re-checks run every ELIGIBILITY_RECHECK_SECONDS on one instance at a time.',
    auth: 'operator',
    responses: { 200: { description: 'The policy and the last round.', json: eligibilityStatusSchema } },
    problems: [],
    handle: async (_, { services }) => ({ json: await eligibilityStatus(services) }),
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
