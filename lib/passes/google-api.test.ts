// The Google Wallet REST client against the Google stand-in over real HTTP: a token from the
// service account's token_uri (JWT bearer grant), the class and object inserted the first time,
// PATCHed after (INACTIVE when voided), a stale token renewed once, and Google's errors surfaced;
// every call paced at GOOGLE_WALLET_RPS, and a 429 waited out (Retry-After) and sent again.
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
    api = new GoogleWalletApi(wallet, { tokenUri: config.google!.tokenUri, apiUrl: config.google!.apiUrl, rps: 1000 });
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

describe('the Google Wallet REST client’s pace', () => {
  let google: GoogleWalletApiStandIn;
  let wallet: GoogleWallet;
  const client = (rps: number, maxWaitMs?: number) => new GoogleWalletApi(wallet, { tokenUri: google.tokenUrl, apiUrl: google.baseUrl, rps, maxWaitMs });
  /** Arrival times (ms) and statuses of the Wallet API calls the stand-in got since `from`. */
  const apiCalls = (from = 0) =>
    google.requests
      .slice(from)
      .filter((r) => r.path.startsWith('/walletobjects/'))
      .map((r) => ({ at: r.at.getTime(), status: r.status }));

  beforeAll(async () => {
    google = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID });
    const config = loadConfig({
      PUBLIC_BASE_URL: 'https://passes.example.com',
      GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID,
      GOOGLE_SERVICE_ACCOUNT: google.serviceAccount.json,
      GOOGLE_WALLET_API_URL: google.baseUrl,
    });
    wallet = (await createGoogleWallet(config))!;
    await client(1000).upsertObject(PASS);
  });
  afterAll(() => google.close());

  it('sends calls evenly at GOOGLE_WALLET_RPS (within 10 % over 3 s), never in a burst', async () => {
    const api = client(8);
    const from = google.requests.length;
    await Promise.all(Array.from({ length: 25 }, (_, i) => api.upsertObject({ ...PASS, voided: i % 2 === 0 })));
    const calls = apiCalls(from);
    expect(calls).toHaveLength(25);
    const rate = (calls.length - 1) / ((calls.at(-1)!.at - calls[0]!.at) / 1000);
    expect(Math.abs(rate - 8) / 8).toBeLessThanOrEqual(0.1);
    // No burst: a one-second window holds the rate, one more where a late turn was made up
    // (lib/pacing.ts, steady), and one more for the millisecond rounding of arrivals.
    for (const call of calls) expect(calls.filter((c) => c.at >= call.at && c.at < call.at + 1000).length).toBeLessThanOrEqual(10);
  });

  it('waits out a 429’s Retry-After, holding every call, and loses none', async () => {
    const api = client(20);
    google.limitRate(5, 1);
    const from = google.requests.length;
    try {
      await Promise.all(Array.from({ length: 12 }, (_, i) => api.upsertObject({ ...PASS, voided: i === 11 })));
    } finally {
      google.limitRate(undefined);
    }
    const calls = apiCalls(from);
    const refused = calls.filter((c) => c.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(calls.filter((c) => c.status === 200)).toHaveLength(12);
    // After a 429, nothing is sent until its Retry-After has passed, but a call whose turn came
    // before the 429 reached the client (at 20/s, one at most, on a busy machine).
    for (const { at } of refused) {
      const sentDuring = calls.filter((c) => c.at > at + 20 && c.at < at + 950);
      expect(sentDuring.length).toBeLessThanOrEqual(1);
    }
    expect(google.object(OBJECT_ID)!.state).toBe('INACTIVE');
  });

  it('gives up after its bounded wait with a 429 GoogleApiError, for the queue job to retry later', async () => {
    const api = client(20, 1500);
    google.limitRate(0, 1);
    const started = performance.now();
    try {
      await expect(api.upsertObject(PASS)).rejects.toMatchObject({ name: 'GoogleApiError', status: 429 });
    } finally {
      google.limitRate(undefined);
    }
    // Two waits of 1 s (the second past the 1.5 s bound), not more.
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(performance.now() - started).toBeLessThan(4000);
    await api.upsertObject(PASS);
    expect(google.object(OBJECT_ID)!.state).toBe('ACTIVE');
  });

  it('backs off 1 s, then 2 s, when a 429 has no Retry-After, holding the calls behind it too', async () => {
    const api = client(20, 2500);
    google.failNext(2, 429);
    const from = google.requests.length;
    await expect(api.upsertObject(PASS)).rejects.toMatchObject({ status: 429 });
    // The second 429 asked for 2 s: a call made now waits it out before it is sent.
    await api.upsertObject(PASS);
    const [first, second, third] = apiCalls(from);
    expect([first!.status, second!.status, third!.status]).toEqual([429, 429, 200]);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(1950);
  });
});
