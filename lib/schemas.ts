// The API's request and response shapes, as zod schemas. Route handlers validate with them and
// the OpenAPI document (lib/api/openapi.ts) is generated from them: one definition, no second copy to
// drift. A schema given an `id` in .meta() becomes a named component of that document.
import bs58 from 'bs58';
import { z } from 'zod';
import { WALLET_TYPES } from './wallet-types';

const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]+$/;

/**
 * Base58 text that decodes to exactly `bytes` bytes. The length and alphabet checks come first so
 * the document states them (minLength, maxLength, pattern); each aborts, so a bad value gets one
 * message, not three. n bytes take n (all leading zeros) to ceil(n·log 256 / log 58) characters.
 */
const base58Of = (bytes: number, what: string) => {
  const message = `must be base58 of a ${bytes}-byte ${what}`;
  const longest = Math.ceil((bytes * Math.log(256)) / Math.log(58));
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(bytes, { message, abort: true })
    .max(longest, { message, abort: true })
    .regex(BASE58_TEXT, { message, abort: true })
    .refine((value) => decodeBase58(value)?.length === bytes, message);
};

export function decodeBase58(value: string): Uint8Array | null {
  try {
    return bs58.decode(value);
  } catch {
    return null;
  }
}

export const MAX_MESSAGE_LENGTH = 2048;

export const publicKeySchema = base58Of(32, 'Ed25519 public key').meta({
  id: 'PublicKey',
  description: 'A wallet address: base58 of a 32-byte Ed25519 public key.',
  examples: ['9C6hybhQ6Aycep9jaUnP6uL9ZYvDjUp1aSkFWPUFJtpj'],
});

export const walletTypeSchema = z
  .enum(WALLET_TYPES, { error: () => `must be one of: ${WALLET_TYPES.join(', ')}` })
  .meta({
    id: 'WalletType',
    description: 'The wallet app, as the Solana wallet adapters name it. Each has its own pass design.',
    examples: ['Phantom'],
  });

export const initQuerySchema = z.object({ publicKey: publicKeySchema });

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
  })
  .meta({
    id: 'InitResponse',
    description:
      'A single-use sign-in message. Sign `message` as it is, or hand the other fields to a wallet with the `solana:signIn` feature, which builds the same text.',
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
        'Base58 of the 64-byte Ed25519 signature over the UTF-8 bytes of `message` (or over a Solana off-chain message envelope of it, as `solana sign-offchain-message` and hardware wallets sign).',
    }),
    publicKey: publicKeySchema,
    walletType: walletTypeSchema.default('Generic'),
  })
  .meta({ id: 'ClaimRequest', description: 'A signed message, redeemed for the wallet’s pass. Unknown fields are ignored.' });

export type ClaimBody = z.infer<typeof claimBodySchema>;

export const claimResponseSchema = z
  .object({
    downloadUrl: z.url().meta({
      description: 'PUBLIC_BASE_URL + /download?pass=<pass_id>. The same URL every time this wallet claims. It is a bearer secret: whoever has it can download the pass.',
    }),
  })
  .meta({ id: 'ClaimResponse' });

export const healthResponseSchema = z
  .object({ status: z.enum(['healthy', 'unhealthy']) })
  .meta({ id: 'Health', description: 'Exactly one field.' });

export const verifyQuerySchema = z.object({
  serial: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a pass serial number (a UUID)')
    .transform((serial) => serial.toLowerCase())
    .meta({ description: "The pass's public serial number, as its QR code carries it.", example: '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10' }),
});

export const passCheckSchema = z
  .object({
    genuine: z.literal(true).meta({ description: 'Always true: the pass was issued here (an unknown serial is a 404). Whether it is valid now is `status`.' }),
    status: z.enum(['active', 'voided']).meta({ description: '`active`: not voided (valid now unless `expired`). `voided`: issued here but void; do not accept it.' }),
    voidReason: z.string().nullable().meta({ description: 'Why the pass was voided (e.g. `not_eligible`); null while it is active.' }),
    expirationDate: z.string().nullable().meta({ description: 'When the pass expires (ISO 8601), as its operator set it; null: it does not.' }),
    expired: z.boolean().meta({ description: 'Past its `expirationDate`: do not accept it, whatever `status` says.' }),
    serialNumber: z.string(),
    publicKey: z.string().meta({ description: 'The wallet address the pass was issued to.' }),
    walletType: walletTypeSchema,
    claimedAt: z.string().meta({ description: 'ISO 8601.' }),
    issuer: z.string().meta({ description: 'PASS_ORGANIZATION_NAME of this service.' }),
  })
  .meta({ description: 'A pass issued by this service, as a scanner at the door sees it, and whether it is valid now.' });

export type PassCheck = z.infer<typeof passCheckSchema>;

export const googleSaveResponseSchema = z
  .object({ saveUrl: z.string().meta({ description: 'https://pay.google.com/gp/v/save/<jwt>' }) })
  .meta({ description: "The pass's Save to Google Wallet link." });

/** The download id: 32 random bytes, base64url (43 characters). */
export const PASS_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const passIdSchema = z.string().regex(PASS_ID_PATTERN).meta({
  description: 'The pass id from a downloadUrl: 43 characters of base64url. A missing, malformed or unknown id is answered 404.',
});

export const downloadQuerySchema = z.object({ pass: passIdSchema });
