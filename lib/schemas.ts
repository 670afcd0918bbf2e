// The API's request and response shapes, as zod schemas. Route handlers validate with them and
// the OpenAPI document is generated from them: one definition, no second copy to drift.
import bs58 from 'bs58';
import { z } from 'zod';
import { WALLET_TYPES } from './wallet-types';

/** Base58 text that decodes to exactly `bytes` bytes. */
const base58Of = (bytes: number, what: string) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .max(128, 'is too long')
    .refine((value) => decodeBase58(value)?.length === bytes, `must be base58 of a ${bytes}-byte ${what}`);

export function decodeBase58(value: string): Uint8Array | null {
  try {
    return bs58.decode(value);
  } catch {
    return null;
  }
}

export const MAX_MESSAGE_LENGTH = 2048;

export const publicKeySchema = base58Of(32, 'Ed25519 public key').meta({
  description: 'The wallet address: base58 of a 32-byte Ed25519 public key.',
  example: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
});

export const walletTypeSchema = z
  .enum(WALLET_TYPES, { error: () => `must be one of: ${WALLET_TYPES.join(', ')}` })
  .meta({ description: 'The wallet app, as Solana wallet adapters name it. Each has its own pass design.' });

export const initQuerySchema = z.object({ publicKey: publicKeySchema });

export const initResponseSchema = z
  .object({
    domain: z.string().meta({ description: 'Host of the service, from PUBLIC_BASE_URL.' }),
    nonce: z.string().meta({ description: 'At least 16 alphanumeric characters, single use.' }),
    issuedAt: z.string().meta({ description: 'ISO 8601.' }),
    expirationTime: z.string().meta({ description: 'ISO 8601; the message cannot be claimed after it.' }),
    message: z.string().meta({ description: 'The exact Sign In With Solana text to sign.' }),
    address: z.string(),
    statement: z.string(),
    uri: z.string(),
    version: z.literal('1'),
    chainId: z.string(),
  })
  .meta({ description: 'A single-use sign-in message, and its fields for a wallet with solana:signIn.' });

export const claimBodySchema = z.object({
  message: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'must not be empty')
    .max(MAX_MESSAGE_LENGTH, `must be at most ${MAX_MESSAGE_LENGTH} characters`)
    .meta({ description: 'The message from /claim/init, or the text a wallet signIn built from its fields.' }),
  signature: base58Of(64, 'Ed25519 signature').meta({
    description: 'Base58 of the 64-byte signature over the message (or over an off-chain message envelope of it).',
  }),
  publicKey: publicKeySchema,
  walletType: walletTypeSchema.default('Generic'),
});

export type ClaimBody = z.infer<typeof claimBodySchema>;

export const claimResponseSchema = z.object({
  downloadUrl: z.string().meta({ description: 'PUBLIC_BASE_URL/download?pass=<pass_id>', example: 'https://passes.example.com/download?pass=…' }),
});

export const healthResponseSchema = z.object({ status: z.enum(['healthy', 'unhealthy']) });

export const verifyQuerySchema = z.object({
  serial: z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a pass serial number (a UUID)')
    .transform((serial) => serial.toLowerCase())
    .meta({ description: "The pass's public serial number, as its QR code carries it.", example: '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10' }),
});

export const passCheckSchema = z
  .object({
    genuine: z.literal(true).meta({ description: 'Always true: an unknown serial is a 404.' }),
    serialNumber: z.string(),
    publicKey: z.string().meta({ description: 'The wallet address the pass was issued to.' }),
    walletType: walletTypeSchema,
    claimedAt: z.string().meta({ description: 'ISO 8601.' }),
    issuer: z.string().meta({ description: 'PASS_ORGANIZATION_NAME of this service.' }),
  })
  .meta({ description: 'A pass issued by this service, as a scanner at the door sees it.' });

export type PassCheck = z.infer<typeof passCheckSchema>;

export const googleSaveResponseSchema = z
  .object({ saveUrl: z.string().meta({ description: 'https://pay.google.com/gp/v/save/<jwt>' }) })
  .meta({ description: "The pass's Save to Google Wallet link." });

/** The download id: 32 random bytes, base64url (43 characters). */
export const PASS_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/;
