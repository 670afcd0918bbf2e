// Signing settings that cannot work stop `npm start` at once, with one line naming the variable,
// rather than at the first download or on a phone.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevelopmentChain, type SigningMaterial } from '@/lib/passes/certificates';
import { TEST_ISSUER_ID, testServiceAccount } from '../support/google';
import { startServerExpectingRefusal } from '../support/server';

describe('start-up refuses signing settings that cannot work', () => {
  let dir: string;
  let chain: SigningMaterial;
  const file = (name: string, text: string) => {
    const at = path.join(dir, name);
    writeFileSync(at, text);
    return at;
  };

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'wpc-startup-'));
    chain = ensureDevelopmentChain(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('an Apple key that does not match the certificate: exit 1, one line naming APPLE_SIGNER_KEY', async () => {
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const { code, stderr } = await startServerExpectingRefusal({
      APPLE_PASS_TYPE_ID: 'pass.com.example.wallet',
      APPLE_TEAM_ID: 'ABCDE12345',
      APPLE_SIGNER_CERT: file('signer.pem', chain.signerCertPem),
      APPLE_SIGNER_KEY: file('other-key.pem', privateKey),
      APPLE_WWDR_CERT: file('wwdr.pem', chain.wwdrCertPem),
    });
    expect(code).toBe(1);
    expect(stderr).toBe('wallet-pass-claim: APPLE_SIGNER_KEY: does not belong to the certificate in APPLE_SIGNER_CERT\n');
  });

  it('Google settings that would make save links too long: exit 1, one line naming GOOGLE_WALLET_ISSUER_ID', async () => {
    const { code, stderr } = await startServerExpectingRefusal({
      PUBLIC_BASE_URL: `https://${'p'.repeat(150)}.example.com`,
      PASS_ORGANIZATION_NAME: 'O'.repeat(64),
      GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID,
      GOOGLE_SERVICE_ACCOUNT: testServiceAccount().json,
    });
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^wallet-pass-claim: GOOGLE_WALLET_ISSUER_ID: Save to Google Wallet links would be up to \d+ characters, over 1800: shorten PUBLIC_BASE_URL or PASS_ORGANIZATION_NAME\n$/,
    );
  });
});
