// The operator API (docs/operators.md): sign-in, passes, statistics, API keys and webhook
// deliveries. Every entry but the sign-in has `auth: 'operator'`, so its handler's context
// carries the caller.
import { createApiKey, deleteApiKey, getApiKeys } from '../../operators/api-keys';
import { fromOwnOriginOrNoBrowser, sessionCookie } from '../../operators/auth';
import { getOperatorPass, getStats, listOperatorPasses } from '../../operators/passes';
import { createOperatorSession, endSession, issueOperatorMessage, SESSION_TTL_SECONDS } from '../../operators/sessions';
import { restorePass, updatePassDates, voidPass } from '../../passes/lifecycle';
import { getDeliveries, retryWebhookDelivery } from '../../webhooks/deliveries';
import { type Endpoint, endpoint } from '../endpoint';
import { initQuerySchema, initResponseSchema } from './claims.schemas';
import { EXAMPLE_API_KEY, EXAMPLE_OPERATOR_INIT_RESPONSE, EXAMPLE_PASS, EXAMPLE_SESSION_REQUEST, EXAMPLE_SESSION_RESPONSE } from './operator.examples';
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
  passDatesBodySchema,
  passesQuerySchema,
  passJson,
  passPageSchema,
  serialParamsSchema,
  sessionBodySchema,
  sessionResponseSchema,
  statsQuerySchema,
  statsSchema,
  voidBodySchema,
} from './operator.schemas';

export const OPERATOR_ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/sessions/init',
    operationId: 'initOperatorSession',
    tag: 'Operators',
    summary: 'Issue an operator sign-in message',
    description:
      'The same answer as `/api/v1/claim/init`, for an operator session: its statement says so, and it can ' +
      'only open a session (a claim refuses it, and this sign-in refuses a claim’s message). Never gated ' +
      'by CLAIM_POLICY; whether the wallet is an operator is told only after it signs.',
    query: initQuerySchema,
    invalidExample: { publicKey: 'not-a-key' },
    rateLimited: true,
    responses: {
      200: {
        description: 'The message to sign, and its fields.',
        json: initResponseSchema,
        example: EXAMPLE_OPERATOR_INIT_RESPONSE,
        headers: ['Cache-Control'],
      },
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
    description:
      `Opens a session for a signed operator message: \`token\` is a bearer token for the other operator ` +
      `endpoints, valid ${SESSION_TTL_SECONDS / 3600} hours. A request from this service’s own pages (its ` +
      `Origin) also gets the session as an HttpOnly, SameSite=Strict cookie for the console. The wallet ` +
      `must be in OPERATOR_WALLETS (403 forbidden otherwise, told only after the signature verifies).`,
    body: { schema: sessionBodySchema, example: EXAMPLE_SESSION_REQUEST },
    rateLimited: true,
    responses: {
      201: { description: 'Signed in.', json: sessionResponseSchema, example: EXAMPLE_SESSION_RESPONSE, headers: ['Set-Cookie'] },
    },
    problems: [
      'invalid_request',
      'message_not_issued',
      'message_expired',
      'signature_invalid',
      'forbidden',
      'message_already_used',
      'payload_too_large',
      'unsupported_media_type',
    ],
    handle: async ({ body, headers }, { services }) => {
      const session = await createOperatorSession(services, body);
      return {
        status: 201,
        json: { token: session.token, expiresAt: session.expiresAt.toISOString() },
        headers: fromOwnOriginOrNoBrowser(services, { headers })
          ? { 'set-cookie': sessionCookie(services, session.token, SESSION_TTL_SECONDS) }
          : ({} as Record<string, string>),
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
    handle: (_, { operator }) => ({ json: { publicKey: operator.publicKey, via: operator.via, expiresAt: operator.expiresAt?.toISOString() ?? null } }),
  }),
  endpoint({
    method: 'DELETE',
    path: '/api/v1/operator/sessions/current',
    operationId: 'signOut',
    tag: 'Operators',
    summary: 'Sign out',
    description:
      'Ends the session of the token (or cookie) at once, everywhere, and clears the cookie. An API key is ' +
      'not a session: revoke it with `DELETE /api/v1/operator/api-keys/{id}` (this answers 403 for one).',
    auth: 'operator',
    responses: { 204: { description: 'Signed out.', headers: ['Set-Cookie'] } },
    problems: [],
    handle: async (_, { services, operator }) => {
      await endSession(services, operator);
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
      'A long-lived bearer token for automation: `key` is shown in this answer only (the service keeps its ' +
      'SHA-256). It acts for the operator who created it, until revoked or until that wallet leaves ' +
      'OPERATOR_WALLETS. Only a session may create one: with an API key this answers 403 forbidden (a key ' +
      'would otherwise outlive the key that made it). The body (a `name`, a `scope`) is optional; `"scope": "scan"` ' +
      'makes a key for the door, that may only check passes in and list programs (docs/check-in.md).',
    auth: 'operator',
    body: { schema: apiKeyCreateSchema, example: { name: 'nightly export' }, optional: true },
    invalidExample: { name: '', scope: 'admin' },
    responses: {
      201: {
        description: 'The key, this once.',
        json: apiKeyCreatedSchema,
        example: { ...EXAMPLE_API_KEY, key: 'wpck_Jx0yH1m8Zt5Lr7Vk9Hs4Jd2Pn6Ag0Ue1To7Ri3Ew3q2' },
      },
    },
    problems: ['invalid_request', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ body }, { services, operator }) => {
      const created = await createApiKey(services, operator, body.name, body.scope);
      return { status: 201, json: { ...apiKeyJson(created), key: created.key } };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/api-keys',
    operationId: 'listApiKeys',
    tag: 'Operators',
    summary: 'List API keys',
    description: 'The keys not revoked, newest first: ids, names, scopes, creators, creation and last use. Never the keys.',
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
      await deleteApiKey(services, operator, params.id);
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
      'Passes, newest claim first, optionally only those of one wallet (`publicKey`), one serial ' +
      '(`serial`), one state (`status`) or one program (`program`). Pages by `cursor` (opaque: pass back `nextCursor`) of `limit` ' +
      'passes; the order is stable, so paging while passes are claimed neither repeats nor skips one.',
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
      'Sets `expirationDate` (after it, Apple Wallet and Google Wallet show the pass as expired and the ' +
      'scanner check refuses it) and `relevantDate` (when Apple Wallet brings the pass to the lock ' +
      'screen). A field given as null is removed, a field left out stays as it is. A change moves ' +
      '`updatedAt`, rebuilds the pass, pushes registered devices, updates the Google Wallet object and ' +
      'sends a `pass.updated` webhook; dates the pass already has change nothing.',
    auth: 'operator',
    params: serialParamsSchema,
    body: { schema: passDatesBodySchema, example: { expirationDate: '2026-12-31T23:00:00Z', relevantDate: null } },
    invalidExample: { expirationDate: '31/12/2026' },
    responses: {
      200: {
        description: 'The pass, with its dates.',
        json: operatorPassSchema,
        example: { ...EXAMPLE_PASS, status: 'active', voidReason: null, expirationDate: '2026-12-31T23:00:00.000Z' },
      },
    },
    problems: ['invalid_request', 'pass_not_found', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ params, body }, { services, operator }) => {
      const { pass, changed } = await updatePassDates(services, params.serialNumber, body);
      if (changed)
        services.log.info({ event: 'operator_updated_pass', serial: pass.serialNumber, by: operator.publicKey }, 'operator changed the dates of a pass');
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
      'Marks the pass voided with a reason: its `updatedAt` moves, the next download says `"voided": ' +
      'true`, registered devices are pushed the change, and a `pass.voided` webhook is sent. Voiding it ' +
      'again with the same reason changes nothing; with another reason, the reason is replaced.',
    auth: 'operator',
    params: serialParamsSchema,
    body: { schema: voidBodySchema, example: { reason: 'ticket refunded' } },
    invalidExample: { reason: '' },
    responses: { 200: { description: 'The pass, voided.', json: operatorPassSchema, example: EXAMPLE_PASS } },
    problems: ['invalid_request', 'pass_not_found', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ params, body }, { services, operator }) => {
      const { pass, changed } = await voidPass(services, params.serialNumber, body.reason);
      if (changed) services.log.info({ event: 'operator_voided_pass', serial: pass.serialNumber, by: operator.publicKey }, 'operator voided a pass');
      return { json: passJson(pass) };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/operator/passes/{serialNumber}/restore',
    operationId: 'restorePass',
    tag: 'Operators',
    summary: 'Restore a voided pass',
    description:
      'Makes a voided pass active again (its reason cleared), with the same updates as a void and a ' +
      '`pass.restored` webhook. Restoring an active pass changes nothing. No body.',
    auth: 'operator',
    params: serialParamsSchema,
    malformedInput: 'pass_not_found',
    responses: { 200: { description: 'The pass, active.', json: operatorPassSchema, example: { ...EXAMPLE_PASS, status: 'active', voidReason: null } } },
    problems: ['pass_not_found'],
    handle: async ({ params }, { services, operator }) => {
      const { pass, changed } = await restorePass(services, params.serialNumber);
      if (changed) services.log.info({ event: 'operator_restored_pass', serial: pass.serialNumber, by: operator.publicKey }, 'operator restored a pass');
      return { json: passJson(pass) };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/stats',
    operationId: 'operatorStats',
    tag: 'Operators',
    summary: 'Statistics',
    description:
      'How many passes, active and voided, device registrations, and claims and check-ins on each of the last 30 days ' +
      '(UTC; every day listed, zeros included, today last); of every program, or of one (`program`).',
    auth: 'operator',
    query: statsQuerySchema,
    invalidExample: { program: 'Not A Slug' },
    responses: { 200: { description: 'The numbers.', json: statsSchema } },
    problems: ['invalid_request'],
    handle: async ({ query }, { services }) => ({ json: await getStats(services, new Date(services.clock.now()), query.program) }),
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/webhooks/deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhooks',
    summary: 'List webhook deliveries',
    description:
      'Every event sent (or to be sent) to WEBHOOK_URL, newest first, with its state, attempts, last error ' +
      'and next attempt. A failing delivery is retried with exponential backoff (10 s, doubling, at most ' +
      'an hour apart) for 24 hours, across restarts, by one instance; then it is `failed`. Kept 7 days ' +
      'once delivered, 30 days once failed. Pages like the pass list.',
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
      'Makes the delivery due at once: a failed one is tried again (with one more day of retries only if ' +
      'it is younger than 24 hours), a pending one is not kept waiting for its backoff, and a delivered ' +
      'one is sent again with the same `webhook-id`. One being sent at this moment is left to that ' +
      'attempt. No body.',
    auth: 'operator',
    params: deliveryParamsSchema,
    malformedInput: 'delivery_not_found',
    responses: { 200: { description: 'The delivery, due now.', json: deliverySchema } },
    problems: ['delivery_not_found'],
    handle: async ({ params }, { services }) => ({ json: deliveryJson(await retryWebhookDelivery(services, params.id)) }),
  }),
];
