// A Google service-account key made up for a test: the JSON shape Google hands out, with a fresh
// RSA key, so the Save to Google Wallet token can be signed and its signature checked.
import { generateKeyPairSync } from 'node:crypto';

export type TestServiceAccount = { json: string; clientEmail: string; publicKeyPem: string };

export function testServiceAccount(): TestServiceAccount {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const clientEmail = 'wallet-pass-claim@test-project-123456.iam.gserviceaccount.com';
  const json = JSON.stringify({
    type: 'service_account',
    project_id: 'test-project-123456',
    private_key_id: '0123456789abcdef0123456789abcdef01234567',
    private_key: privateKey,
    client_email: clientEmail,
    client_id: '123456789012345678901',
  });
  return { json, clientEmail, publicKeyPem: publicKey };
}

export const TEST_ISSUER_ID = '3388000000022222222';
