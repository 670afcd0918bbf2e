// Shapes every feature of the API shares: a wallet's address, its signature and its wallet app.
// Like each <feature>.schemas.ts beside its endpoints, the frame validates with them and the
// OpenAPI document (../openapi.ts) is generated from them: one definition, no second copy to drift.
// A schema given an `id` in .meta() becomes a named component of that document.
import { z } from 'zod';
import { decodeBase58 } from '../../base58';
import { WALLET_TYPES } from '../../wallet-types';

const BASE58_TEXT = /^[1-9A-HJ-NP-Za-km-z]+$/;

/**
 * Base58 text that decodes to exactly `bytes` bytes. The length and alphabet checks come first so
 * the document states them (minLength, maxLength, pattern); each aborts, so a bad value gets one
 * message, not three. n bytes take n (all leading zeros) to ceil(n·log 256 / log 58) characters.
 */
export const base58Of = (bytes: number, what: string) => {
  const message = `must be base58 of a ${bytes}-byte ${what}`;
  const longest = Math.ceil((bytes * Math.log(256)) / Math.log(58));
  return z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(bytes, { message, abort: true })
    .max(longest, { message, abort: true })
    .regex(BASE58_TEXT, { message, abort: true })
    .refine((value) => decodeBase58(value)?.length === bytes, message);
};

export const publicKeySchema = base58Of(32, 'Ed25519 public key').meta({
  id: 'PublicKey',
  description: 'A wallet address: base58 of a 32-byte Ed25519 public key.',
  examples: ['9C6hybhQ6Aycep9jaUnP6uL9ZYvDjUp1aSkFWPUFJtpj'],
});

export const walletTypeSchema = z.enum(WALLET_TYPES, { error: () => `must be one of: ${WALLET_TYPES.join(', ')}` }).meta({
  id: 'WalletType',
  description: 'The wallet app, as the Solana wallet adapters name it. Each has its own pass design.',
  examples: ['Phantom'],
});
