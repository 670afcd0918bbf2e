// The Google Wallet REST client against the Google stand-in over real HTTP: a token from the
// service account's token_uri (JWT bearer grant), the class and object inserted the first time,
// PATCHed after (INACTIVE when voided), a stale token renewed once, and Google's errors surfaced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ISSUER_ID } from '@/test/support/google';
import { GoogleWalletApiStandIn } from '@/test/support/stand-ins/google-wallet-api';
import { loadConfig } from '../config';
import type { PassContent } from './content';
import { GoogleApiError, GoogleWalletApi } from './google-api';
import { createGoogleWallet, type GoogleWallet } from './google-wallet';

const PASS: PassContent = {
  serialNumber: '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10',
  publicKey: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  walletType: 'Phantom',
  claimedAt: new Date('2026-11-20T10:00:00Z'),
};
const OBJECT_ID = `${TEST_ISSUER_ID}.${PASS.serialNumber}`;

describe('the Google Wallet REST client', () => {
  let google: GoogleWalletApiStandIn;
  let wallet: GoogleWallet;
  let api: GoogleWalletApi;

  beforeAll(async () => {
    google = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID });
    const config = loadConfig({
      PUBLIC_BASE_URL: 'https://passes.example.com',
      GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID,
      GOOGLE_SERVICE_ACCOUNT: google.serviceAccount.json,
      GOOGLE_WALLET_API_URL: google.baseUrl,
    });
    expect(config.google).toMatchObject({ tokenUri: google.tokenUrl, apiUrl: google.baseUrl });
    wallet = (await createGoogleWallet(config))!;
    api = new GoogleWalletApi(wallet, { tokenUri: config.google!.tokenUri, apiUrl: config.google!.apiUrl });
  });
  afterAll(() => google.close());

  it('inserts the class and the object the first time, with the pass’s fields and ACTIVE', async () => {
    await api.upsertObject(PASS);
    expect(google.class(`${TEST_ISSUER_ID}.wallet_pass`)).toBeDefined();
    expect(google.object(OBJECT_ID)).toMatchObject({ id: OBJECT_ID, state: 'ACTIVE', header: { defaultValue: { value: '9xQe…VFin' } } });
    expect(google.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /token 200',
      `PATCH /walletobjects/v1/genericObject/${OBJECT_ID} 404`,
      'POST /walletobjects/v1/genericClass 200',
      'POST /walletobjects/v1/genericObject 200',
    ]);
  });

  it('PATCHes it when the pass changes: INACTIVE when voided, ACTIVE when restored, with one token', async () => {
    google.requests.length = 0;
    await api.upsertObject({ ...PASS, voided: true });
    expect(google.object(OBJECT_ID)!.state).toBe('INACTIVE');
    await api.upsertObject(PASS);
    expect(google.object(OBJECT_ID)!.state).toBe('ACTIVE');
    expect(google.requests.map((r) => `${r.method} ${r.status}`)).toEqual(['PATCH 200', 'PATCH 200']);
  });

  it('renews an expired access token once and goes on', async () => {
    google.expireTokens();
    google.requests.length = 0;
    await api.upsertObject({ ...PASS, voided: true });
    expect(google.requests.map((r) => `${r.method} ${r.path.split('/')[1]} ${r.status}`)).toEqual([
      'PATCH walletobjects 401',
      'POST token 200',
      'PATCH walletobjects 200',
    ]);
  });

  it('throws Google’s failure (for the queue to retry), and succeeds once Google answers again', async () => {
    google.failNext(1, 503);
    await expect(api.upsertObject(PASS)).rejects.toThrow(GoogleApiError);
    await api.upsertObject(PASS);
    expect(google.object(OBJECT_ID)!.state).toBe('ACTIVE');
  });
});
