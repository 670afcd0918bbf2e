// The claim's request and response shapes (./claims.ts), beside its endpoints like every
// feature's: the frame validates with them and the OpenAPI document is generated from them.
import { z } from 'zod';
import { SLUG_PATTERN } from '../../programs/schema';
import { base58Of, publicKeySchema, walletTypeSchema } from './wallet.schemas';

export const MAX_MESSAGE_LENGTH = 2048;

/** A program's slug, where a request names one: none means the default program. */
export const programSlugSchema = z
  .string({ error: 'must be a program slug' })
  .regex(SLUG_PATTERN, 'must be a program slug: 3 to 40 lowercase letters, digits or hyphens')
  .meta({ description: 'The program (its slug); omitted: `default`, the service of parts one and two.', example: 'summit-2026' });

export const initQuerySchema = z.object({ publicKey: publicKeySchema, program: programSlugSchema.optional() });

export const initResponseSchema = z
  .object({
    domain: z.string().meta({ description: 'Host of the service (with its port, if any), from PUBLIC_BASE_URL.' }),
    nonce: z.string().meta({ description: 'At least 16 alphanumeric characters from a cryptographic source; single use.' }),
    issuedAt: z.string().meta({ description: 'ISO 8601, whole seconds.' }),
    expirationTime: z.string().meta({ description: 'ISO 8601; the message cannot be claimed after it.' }),
    message: z.string().meta({ description: 'The exact Sign In With Solana text to sign (UTF-8).' }),
    address: z.string().meta({ description: 'The wallet address the message was issued for.' }),
    statement: z.string().meta({ description: 'The statement line of the message.' }),
    uri: z.string().meta({ description: 'PUBLIC_BASE_URL.' }),
    version: z.literal('1'),
    chainId: z.string().meta({ description: 'The Solana cluster, e.g. mainnet.' }),
    resources: z
      .array(z.string())
      .optional()
      .meta({ description: 'For a program other than the default: its claim page, the message’s one Resources line. Absent otherwise.' }),
  })
  .meta({
    id: 'InitResponse',
    description:
      'A single-use sign-in message. Sign `message` as it is, or hand the other fields to a wallet with ' +
      'the `solana:signIn` feature, which builds the same text.',
  });

export const claimBodySchema = z
  .object({
    message: z
      .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
      .min(1, 'must not be empty')
      .max(MAX_MESSAGE_LENGTH, `must be at most ${MAX_MESSAGE_LENGTH} characters`)
      .meta({ description: 'The message from /api/v1/claim/init, or the text a wallet signIn built from its fields.' }),
    signature: base58Of(64, 'Ed25519 signature').meta({
      description:
        'Base58 of the 64-byte Ed25519 signature over the UTF-8 bytes of `message` (or over a Solana ' +
        'off-chain message envelope of it, as `solana sign-offchain-message` and hardware wallets sign).',
    }),
    publicKey: publicKeySchema,
    walletType: walletTypeSchema.default('Generic'),
    program: programSlugSchema.optional(),
  })
  .meta({ id: 'ClaimRequest', description: 'A signed message, redeemed for the wallet’s pass. Unknown fields are ignored.' });

export type ClaimBody = z.infer<typeof claimBodySchema>;

export const claimResponseSchema = z
  .object({
    downloadUrl: z.url().meta({
      description:
        'PUBLIC_BASE_URL + /download?pass=<pass_id>. The same URL every time this wallet claims. It is a bearer secret: whoever has it can download the pass.',
    }),
  })
  .meta({ id: 'ClaimResponse' });
