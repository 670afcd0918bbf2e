// The Sign In With Solana message: build the issued fields, render them, and decide whether a
// submitted text is the one we issued. Rendering and parsing come from @solana/wallet-standard-util
// so the text is exactly what wallets' `solana:signIn` builds from the same fields.
import { randomInt } from 'node:crypto';
import { createSignInMessageText, parseSignInMessageText } from '@solana/wallet-standard-util';

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
  };
}

export function renderSignInMessage(fields: SignInFields): string {
  return createSignInMessageText(fields);
}

/** The nonce a submitted text claims to carry, or null when it is not Sign In With Solana text. */
export function nonceOf(text: string): string | null {
  return parseSignInMessageText(text)?.nonce ?? null;
}

/**
 * Whether `submitted` is the message we issued as `issued`: the same text, or a text a wallet's
 * signIn built whose every field equals the issued one. Threat: a message altered in any field
 * (domain, address, expiry...) or carrying extra fields we never issued (Not Before, Resources)
 * would otherwise be accepted on the strength of a nonce alone.
 */
export function isIssuedMessage(submitted: string, issued: SignInFields): boolean {
  if (submitted === renderSignInMessage(issued)) return true;
  const parsed = parseSignInMessageText(submitted);
  if (!parsed) return false;
  if (parsed.notBefore !== undefined || parsed.requestId !== undefined || parsed.resources !== undefined) {
    return false;
  }
  return COMPARED_FIELDS.every((field) => parsed[field] === issued[field]);
}
