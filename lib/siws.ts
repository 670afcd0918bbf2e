// The Sign In With Solana message: build the issued fields, render them, and verify a signed one,
// the one verifier of claims and operator sessions (parse: nonceOf; verify: verifySignInSignature;
// validate: refusalOf). Rendering and parsing come from @solana/wallet-standard-util so the text is
// exactly what wallets' `solana:signIn` builds from the same fields.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { createSignInMessageText, parseSignInMessageText } from '@solana/wallet-standard-util';
import { decodeBase58 } from './base58';
import { AppError } from './errors';
import { verifyWalletSignature } from './signature';

/** The fields of one issued message: what a wallet's signIn receives, and what the text holds. */
export type SignInFields = {
  domain: string;
  address: string;
  statement: string;
  uri: string;
  version: '1';
  chainId: string;
  nonce: string;
  issuedAt: string;
  expirationTime: string;
  /** A program's claim page, for a program other than the default: the message names what it claims. */
  resources?: string[];
};

const COMPARED_FIELDS = [
  'domain',
  'address',
  'statement',
  'uri',
  'version',
  'chainId',
  'nonce',
  'issuedAt',
  'expirationTime',
] as const satisfies readonly (keyof SignInFields)[];

const NONCE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** 24 characters of a 62-letter alphabet: 142 bits, well past guessing. */
export const NONCE_LENGTH = 24;

/**
 * A fresh nonce from the cryptographic random source. Threat: a guessable nonce (the service we
 * replace used 8 characters of Math.random) lets an attacker pre-compute or replay messages.
 * randomInt is uniform, so no character is likelier than another.
 */
export function createNonce(): string {
  let nonce = '';
  for (let i = 0; i < NONCE_LENGTH; i++) nonce += NONCE_ALPHABET[randomInt(NONCE_ALPHABET.length)];
  return nonce;
}

export type IssueParams = {
  domain: string;
  uri: string;
  statement: string;
  chainId: string;
  ttlSeconds: number;
  /** Resources lines (a program's claim page); none for the default program, whose text is as before. */
  resources?: string[];
};

/** The fields of a new message for `address`. The domain always comes from configuration. */
export function buildSignInFields(params: IssueParams, address: string, now = new Date()): SignInFields {
  // Whole seconds keep the text short and identical however a wallet re-renders the timestamp.
  const issued = new Date(Math.floor(now.getTime() / 1000) * 1000);
  const expires = new Date(issued.getTime() + params.ttlSeconds * 1000);
  return {
    domain: params.domain,
    address,
    statement: params.statement,
    uri: params.uri,
    version: '1',
    chainId: params.chainId,
    nonce: createNonce(),
    issuedAt: issued.toISOString(),
    expirationTime: expires.toISOString(),
    ...(params.resources?.length ? { resources: params.resources } : {}),
  };
}

export function renderSignInMessage(fields: SignInFields): string {
  return createSignInMessageText(fields);
}

/** The nonce a submitted text claims to carry, or null when it is not Sign In With Solana text. */
export function nonceOf(text: string): string | null {
  return parseSignInMessageText(text)?.nonce ?? null;
}

/** The nonce and Resources lines a submitted text claims to carry, or null when it is not Sign In With Solana text. */
export function claimedFieldsOf(text: string): { nonce: string; resources: string[] } | null {
  const parsed = parseSignInMessageText(text);
  return parsed?.nonce ? { nonce: parsed.nonce, resources: [...(parsed.resources ?? [])] } : null;
}

/**
 * Whether `submitted` is the message we issued as `issued`: the same text, or a text a wallet's
 * signIn built whose every field equals the issued one. Threat: a message altered in any field
 * (domain, address, expiry...) or carrying extra fields we never issued (Not Before, Resources)
 * would otherwise be accepted on the strength of a nonce alone.
 */
export function isIssuedMessage(submitted: string, issued: SignInFields): boolean {
  if (sameInConstantTime(submitted, renderSignInMessage(issued))) return true;
  const parsed = parseSignInMessageText(submitted);
  if (!parsed) return false;
  if (parsed.notBefore !== undefined || parsed.requestId !== undefined) return false;
  // Resources name the program: exactly the issued ones, in order, or none when none were issued.
  if (JSON.stringify(parsed.resources ?? []) !== JSON.stringify(issued.resources ?? [])) return false;
  return COMPARED_FIELDS.every((field) => parsed[field] === issued[field]);
}

/** A signed sign-in as a wallet submits it: the text, and base58 signature and public key. */
export type SignedSignIn = { message: string; signature: string; publicKey: string };

/** What the store holds of an issued message, found by the hash of the submitted nonce. */
export type IssuedSignIn = { publicKey: string; message: string; expiresAt: Date; usedAt?: Date | null };

/** Why a signed sign-in is refused: the error code each caller answers with. */
export type SignInRefusal = 'message_not_issued' | 'signature_invalid' | 'message_already_used' | 'message_expired';

/** Whether `signed.signature` is `signed.publicKey`'s signature over the text (raw, or in an off-chain envelope). */
export function verifySignInSignature(signed: SignedSignIn): boolean {
  const signature = decodeBase58(signed.signature);
  const publicKey = decodeBase58(signed.publicKey);
  return signature !== null && publicKey !== null && verifyWalletSignature(signed.message, signature, publicKey, signed.publicKey) !== null;
}

/**
 * Why `signed` may not sign in against `issued` (the row its nonce found), or null when it may.
 * The answers come in the documented order: whether we issued it, then the signature; only a
 * holder of the key learns whether the message was used or has expired.
 */
export function refusalOf(
  signed: SignedSignIn,
  issued: IssuedSignIn | null | undefined,
  now: Date,
  /** The answer of verifySignInSignature when the caller already has it; otherwise it is asked only when needed. */
  signatureValid?: boolean,
): SignInRefusal | null {
  // A made-up or guessed nonce: we issued nothing under it.
  if (!issued) return 'message_not_issued';
  // Another wallet's message: issued to a different key.
  if (!sameInConstantTime(issued.publicKey, signed.publicKey)) return 'message_not_issued';
  // An altered text, or another site's: any field changed (domain, URI, chain, dates...) or added.
  const fields = parseSignInMessageText(issued.message) as SignInFields | null;
  if (!fields || !isIssuedMessage(signed.message, fields)) return 'message_not_issued';
  // A signature by another key, over other bytes, or not canonical: the wallet did not sign this.
  if (!(signatureValid ?? verifySignInSignature(signed))) return 'signature_invalid';
  // A replay: each message signs in once.
  if (issued.usedAt) return 'message_already_used';
  // A signed message kept (or leaked) past its time.
  if (issued.expiresAt <= now) return 'message_expired';
  return null;
}

/**
 * String equality whose time does not depend on where the strings differ: timingSafeEqual over
 * SHA-256 digests, which are of equal length whatever the inputs are.
 */
function sameInConstantTime(a: string, b: string): boolean {
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}

/**
 * The errors of each refusal for one kind of sign-in (a claim, an operator session): the codes
 * and their order are the verifier's; only what the message was for and where a new one comes
 * from differ.
 */
export function refusalErrors(wording: { notIssued: string; usedTo: string; initPath: string }): Record<SignInRefusal, () => AppError> {
  return {
    message_not_issued: () => new AppError('message_not_issued', wording.notIssued),
    signature_invalid: () => new AppError('signature_invalid', 'The signature does not verify for this message and public key.'),
    message_already_used: () =>
      new AppError('message_already_used', `This message was already used to ${wording.usedTo}. Ask ${wording.initPath} for a new one.`),
    message_expired: () => new AppError('message_expired', `This message has expired. Ask ${wording.initPath} for a new one.`),
  };
}
