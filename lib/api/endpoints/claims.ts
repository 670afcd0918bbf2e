// Claiming a pass: a sign-in message for a wallet, and the pass for that message signed. Their
// schemas are in ./claims.schemas.ts, beside them like every feature's.
import { claimWalletPass, issueMessage } from '../../claims';
import { MAX_BODY_BYTES } from '../body';
import { type Endpoint, endpoint } from '../endpoint';
import { EXAMPLE_CLAIM_REQUEST, EXAMPLE_CLAIM_RESPONSE, EXAMPLE_INIT_RESPONSE } from './claims.examples';
import { claimBodySchema, claimResponseSchema, initQuerySchema, initResponseSchema } from './claims.schemas';

export const CLAIM_ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/api/v1/claim/init',
    operationId: 'initClaim',
    tag: 'Claim',
    summary: 'Issue a sign-in message',
    description:
      'Issues a single-use Sign In With Solana message for the wallet. The message is stored: it survives ' +
      'a restart, is valid on every instance, and issuing another never cancels it. Sign the UTF-8 bytes ' +
      'of `message`, then claim within `expirationTime`. With `program`, the message is for that program ' +
      '(its Resources line names the program’s claim page) and claims only there.',
    query: initQuerySchema,
    invalidExample: { publicKey: 'not-a-key' },
    rateLimited: true,
    responses: {
      200: { description: 'The message to sign, and its fields.', json: initResponseSchema, example: EXAMPLE_INIT_RESPONSE, headers: ['Cache-Control'] },
    },
    problems: ['invalid_request', 'not_eligible', 'program_closed', 'sold_out', 'program_not_found'],
    handle: async ({ query }, { services }) => ({ json: await issueMessage(services, query.publicKey, query.program) }),
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/claim/wallet-pass',
    operationId: 'claimWalletPass',
    tag: 'Claim',
    summary: 'Claim the wallet’s pass with a signed message',
    description:
      `Redeems a signed message for the wallet's pass. The body is JSON (Content-Type: application/json), ` +
      `at most ${MAX_BODY_BYTES / 1024} KiB. The message must be one this service issued for ` +
      `\`publicKey\`, unexpired and unused, and \`signature\` must verify for it. Each message claims ` +
      `once; one wallet has one pass per program. \`program\` must be the program the message was issued ` +
      `for (none: the default program).`,
    body: { schema: claimBodySchema, example: EXAMPLE_CLAIM_REQUEST },
    invalidExample: { message: '', signature: 'not base58', publicKey: EXAMPLE_CLAIM_REQUEST.publicKey, walletType: 'Backpack' },
    rateLimited: true,
    responses: {
      200: {
        description: 'The wallet already had a pass: its URL (the same every time). The message is used up.',
        json: claimResponseSchema,
        example: EXAMPLE_CLAIM_RESPONSE,
      },
      201: { description: 'A pass was created for the wallet.', json: claimResponseSchema, example: EXAMPLE_CLAIM_RESPONSE },
    },
    problems: [
      'invalid_request',
      'message_not_issued',
      'message_expired',
      'signature_invalid',
      'not_eligible',
      'program_closed',
      'sold_out',
      'program_not_found',
      'message_already_used',
      'payload_too_large',
      'unsupported_media_type',
    ],
    handle: async ({ body }, { services }) => {
      const { created, downloadUrl } = await claimWalletPass(services, body);
      return { status: created ? 201 : 200, json: { downloadUrl } };
    },
  }),
];
