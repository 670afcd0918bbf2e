import { createSignInMessageText } from '@solana/wallet-standard-util';
import { describe, expect, it } from 'vitest';
import { buildSignInFields, createNonce, isIssuedMessage, NONCE_LENGTH, nonceOf, renderSignInMessage } from './siws';

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
