import { createSignInMessageText } from '@solana/wallet-standard-util';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import {
  buildSignInFields,
  createNonce,
  type IssuedSignIn,
  isIssuedMessage,
  NONCE_LENGTH,
  nonceOf,
  refusalOf,
  renderSignInMessage,
  verifySignInSignature,
} from './siws';

const params = { domain: 'passes.example.com', uri: 'https://passes.example.com', statement: 'Claim your pass.', chainId: 'mainnet', ttlSeconds: 600 };
const address = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

describe('nonces', () => {
  it('are 24 alphanumeric characters, never repeated, every character in use', () => {
    const nonces = Array.from({ length: 5000 }, createNonce);
    expect(new Set(nonces).size).toBe(nonces.length);
    for (const nonce of nonces) expect(nonce).toMatch(new RegExp(`^[A-Za-z0-9]{${NONCE_LENGTH}}$`));
    // 120,000 draws over 62 letters: each appears ~1,935 times; a skewed source would show here.
    const counts = new Map<string, number>();
    for (const c of nonces.join('')) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const count of counts.values()) expect(count).toBeGreaterThan(1600);
  });
});

describe('the sign-in message', () => {
  const fields = buildSignInFields(params, address, new Date('2026-11-21T10:00:00.750Z'));

  it('renders exactly as createSignInMessageText, whole seconds, expiring after the TTL', () => {
    expect(fields.issuedAt).toBe('2026-11-21T10:00:00.000Z');
    expect(fields.expirationTime).toBe('2026-11-21T10:10:00.000Z');
    const text = renderSignInMessage(fields);
    expect(text).toBe(createSignInMessageText(fields));
    expect(text).toBe(
      [
        'passes.example.com wants you to sign in with your Solana account:',
        address,
        '',
        'Claim your pass.',
        '',
        'URI: https://passes.example.com',
        'Version: 1',
        'Chain ID: mainnet',
        `Nonce: ${fields.nonce}`,
        'Issued At: 2026-11-21T10:00:00.000Z',
        'Expiration Time: 2026-11-21T10:10:00.000Z',
      ].join('\n'),
    );
    expect(nonceOf(text)).toBe(fields.nonce);
  });

  it('matches the issued text, or a rebuilt text with every field equal, and nothing else', () => {
    const text = renderSignInMessage(fields);
    expect(isIssuedMessage(text, fields)).toBe(true);
    expect(isIssuedMessage(`${text}\n`, fields)).toBe(true);
    expect(isIssuedMessage(text.replace('Version: 1', 'Version: 2'), fields)).toBe(false);
    expect(isIssuedMessage(text.replace(fields.nonce, createNonce()), fields)).toBe(false);
    expect(isIssuedMessage(`${text}\nRequest ID: 1`, fields)).toBe(false);
    expect(isIssuedMessage(` ${text}`, fields)).toBe(false);
    expect(isIssuedMessage(text.replace('\n', '\r\n'), fields)).toBe(false);
    expect(isIssuedMessage('', fields)).toBe(false);
  });

  it('finds no nonce in text that is not a sign-in message', () => {
    expect(nonceOf('hello')).toBeNull();
    expect(nonceOf('')).toBeNull();
  });
});

describe('the sign-in verifier (claims and operator sessions)', () => {
  const wallet = nacl.sign.keyPair();
  const other = nacl.sign.keyPair();
  const walletAddress = bs58.encode(wallet.publicKey);
  const issuedAt = new Date('2026-11-21T10:00:00Z');
  const fields = buildSignInFields(params, walletAddress, issuedAt);
  const text = renderSignInMessage(fields);
  const now = new Date('2026-11-21T10:05:00Z');
  const issued: IssuedSignIn = { publicKey: walletAddress, message: text, expiresAt: new Date(fields.expirationTime), usedAt: null };
  const signedBy = (keys: nacl.SignKeyPair, message: string) => bs58.encode(nacl.sign.detached(Buffer.from(message, 'utf8'), keys.secretKey));
  const signedIn = (message: string, keys = wallet) => ({ message, signature: signedBy(keys, message), publicKey: walletAddress });

  it('accepts the issued text signed by its wallet, and a signIn-built text with every field equal', () => {
    expect(refusalOf(signedIn(text), issued, now)).toBeNull();
    expect(refusalOf(signedIn(createSignInMessageText(fields)), issued, now)).toBeNull();
  });

  it('refuses a nonce it never issued', () => {
    expect(refusalOf(signedIn(text), undefined, now)).toBe('message_not_issued');
    expect(refusalOf(signedIn(text), null, now)).toBe('message_not_issued');
  });

  it('refuses another wallet’s message, even signed by the key it names', () => {
    const otherAddress = bs58.encode(other.publicKey);
    const submitted = { message: text, signature: signedBy(other, text), publicKey: otherAddress };
    expect(refusalOf(submitted, issued, now)).toBe('message_not_issued');
  });

  it('refuses a text for another domain, or altered in any field, even when the wallet signed it', () => {
    expect(refusalOf(signedIn(text.replace('passes.example.com wants', 'evil.example.com wants')), issued, now)).toBe('message_not_issued');
    expect(refusalOf(signedIn(text.replace(fields.expirationTime, '2027-11-21T10:10:00.000Z')), issued, now)).toBe('message_not_issued');
    expect(refusalOf(signedIn(`${text}\nResources:\n- https://evil.example.com`), issued, now)).toBe('message_not_issued');
  });

  it('refuses a signature by another key, over other bytes, or that is not base58', () => {
    expect(refusalOf(signedIn(text, other), issued, now)).toBe('signature_invalid');
    expect(refusalOf({ ...signedIn(text), signature: signedBy(wallet, `${text} `) }, issued, now)).toBe('signature_invalid');
    expect(refusalOf({ ...signedIn(text), signature: '0OIl' }, issued, now)).toBe('signature_invalid');
    expect(verifySignInSignature({ ...signedIn(text), publicKey: '0OIl' })).toBe(false);
  });

  it('refuses a replayed message, and a message past its expiry, but tells only the key holder', () => {
    const used = { ...issued, usedAt: new Date('2026-11-21T10:01:00Z') };
    expect(refusalOf(signedIn(text), used, now)).toBe('message_already_used');
    expect(refusalOf(signedIn(text, other), used, now)).toBe('signature_invalid');
    expect(refusalOf(signedIn(text), issued, new Date(fields.expirationTime))).toBe('message_expired');
    expect(refusalOf(signedIn(text, other), issued, new Date(fields.expirationTime))).toBe('signature_invalid');
  });

  it('takes the caller’s signature answer when it has one', () => {
    expect(refusalOf(signedIn(text), issued, now, false)).toBe('signature_invalid');
    expect(refusalOf(signedIn(text, other), issued, now, true)).toBeNull();
  });
});
