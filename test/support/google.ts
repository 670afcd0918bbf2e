// A Google service-account key made up for a test: the JSON shape Google hands out, with a fresh
// RSA key, so the Save to Google Wallet token can be signed and its signature checked, and so a
// client can get an access token from the Google stand-in (test/support/stand-ins) by pointing
// `token_uri` at it.
import { generateKeyPairSync } from 'node:crypto';

/** Where Google's own keys send their OAuth 2.0 token requests. */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

export type TestServiceAccount = { json: string; clientEmail: string; publicKeyPem: string; privateKeyPem: string; tokenUri: string };

export type TestServiceAccountOptions = {
  /** The key's `token_uri`; Google's by default, a stand-in's `tokenUrl` in tests that fetch tokens. */
  tokenUri?: string;
};

export function testServiceAccount(options: TestServiceAccountOptions = {}): TestServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const clientEmail = 'wallet-pass-claim@test-project-123456.iam.gserviceaccount.com';
  const tokenUri = options.tokenUri ?? GOOGLE_TOKEN_URI;
  const json = JSON.stringify({
    type: 'service_account',
    project_id: 'test-project-123456',
    private_key_id: '0123456789abcdef0123456789abcdef01234567',
    private_key: privateKey,
    client_email: clientEmail,
    client_id: '123456789012345678901',
    token_uri: tokenUri,
  });
  return { json, clientEmail, publicKeyPem: publicKey, privateKeyPem: privateKey, tokenUri };
}

export const TEST_ISSUER_ID = '3388000000022222222';
