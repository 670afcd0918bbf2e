// The pass a wallet gets, beyond the contract's download: its design, the scanner check as JSON
// (GET /api/v1/passes/verify) and the Save to Google Wallet link (GET /api/v1/passes/google),
// through the real route handlers on a real database.
import { importSPKI, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClaimClient } from '@/lib/client';
import { designFor, rgb } from '@/lib/passes/designs';
import { GOOGLE_SAVE_URL } from '@/lib/passes/google-wallet';
import { updatePassDates } from '@/lib/passes/lifecycle';
import { BACKENDS, TestApp, TestWallet } from '../support/app';
import { TEST_ISSUER_ID, type TestServiceAccount } from '../support/google';
import { inspectPkpass } from '../support/pkpass';
import { GoogleWalletApiStandIn } from '../support/stand-ins/google-wallet-api';

const BASE = 'https://passes.example.com';

async function problemOf(response: Response) {
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  return response.json();
}

/** The typed API client, talking to the route handlers of `app`. */
const clientOf = (app: TestApp) => createClaimClient({ baseUrl: BASE, fetch: (input, init) => app.fetch(String(input).slice(BASE.length), init ?? {}) });

/** Claims a pass for a new wallet and downloads it: the pass id, its pass.json and its bytes. */
async function claimAndDownload(app: TestApp, walletType = 'Solflare') {
  const wallet = new TestWallet();
  const response = await app.claimWith(wallet, { walletType });
  const { downloadUrl } = (await response.json()) as { downloadUrl: string };
  const passId = new URL(downloadUrl).searchParams.get('pass')!;
  const download = await app.fetch(`/download?pass=${passId}`);
  const bytes = Buffer.from(await download.arrayBuffer());
  return { wallet, passId, download, bytes, pass: inspectPkpass(bytes) };
}

describe.each(BACKENDS)('passes on %s', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.open(backend, { PUBLIC_BASE_URL: BASE, PASS_ORGANIZATION_NAME: 'Door Test Club' });
  });
  afterAll(() => app.close());

  describe('the downloaded pass', () => {
    it("is built in its wallet's design and named after the wallet type", async () => {
      const { download, pass, wallet } = await claimAndDownload(app, 'Coinbase Wallet');
      const design = designFor('Coinbase Wallet');
      expect(download.headers.get('content-disposition')).toBe('attachment; filename="coinbase-wallet-wallet-pass.pkpass"');
      expect(download.headers.get('cache-control')).toMatch(/^private/);
      expect(pass.passJson).toMatchObject({
        logoText: 'Coinbase Wallet',
        backgroundColor: rgb(design.background),
        organizationName: 'Door Test Club',
      });
      expect(pass.passJson.generic.backFields[0]).toMatchObject({ value: wallet.publicKey });
      expect(pass.opensslVerify().ok).toBe(true);
    });

    it('puts the public serial number in the QR code, never the secret download id', async () => {
      const { pass, passId } = await claimAndDownload(app);
      const qr = pass.passJson.barcodes[0].message as string;
      // Beside the serial, the check-in code only the service can make (docs/check-in.md).
      expect(qr).toMatch(new RegExp(`^${BASE}/verify\\?serial=${pass.passJson.serialNumber}&c=[A-Za-z0-9_-]{22}$`));
      expect(pass.passJson.serialNumber).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(JSON.stringify(pass.passJson)).not.toContain(passId);
    });

    it('is byte-identical on every download, also after a restart, and answers If-None-Match with 304', async () => {
      const { passId, bytes, download } = await claimAndDownload(app);
      const etag = download.headers.get('etag')!;
      await app.restart();
      const again = await app.fetch(`/download?pass=${passId}`);
      expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
      expect(again.headers.get('etag')).toBe(etag);
      const cached = await app.fetch(`/download?pass=${passId}`, { headers: { 'if-none-match': `W/"other", ${etag}` } });
      expect(cached.status).toBe(304);
      expect(cached.headers.get('etag')).toBe(etag);
      expect(await cached.text()).toBe('');
    });
  });

  describe('GET /api/v1/passes/verify', () => {
    it('answers what this service issued under the serial: genuine, valid now, wallet, wallet type, claim time, issuer', async () => {
      const { pass, wallet } = await claimAndDownload(app, 'Trust');
      const serial = pass.passJson.serialNumber as string;
      const response = await app.fetch(`/api/v1/passes/verify?serial=${serial}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = await response.json();
      expect(body).toEqual({
        genuine: true,
        status: 'active',
        voidReason: null,
        expirationDate: null,
        expired: false,
        serialNumber: serial,
        publicKey: wallet.publicKey,
        program: 'default',
        walletType: 'Trust',
        claimedAt: expect.any(String),
        issuer: 'Door Test Club',
      });
      expect(Math.abs(Date.parse(body.claimedAt) - Date.now())).toBeLessThan(60_000);
      expect(JSON.stringify(body)).not.toMatch(/download|pass=/);
    });

    it('says a pass is expired once its expiration date has passed, as JSON and on the page', async () => {
      const { pass } = await claimAndDownload(app);
      const serial = pass.passJson.serialNumber as string;
      const ahead = new Date(Date.now() + 3_600_000);
      await updatePassDates(app.services, serial, { expirationDate: ahead });
      expect(await (await app.fetch(`/api/v1/passes/verify?serial=${serial}`)).json()).toMatchObject({
        status: 'active',
        expirationDate: ahead.toISOString(),
        expired: false,
      });
      const passed = new Date(Date.now() - 1000);
      await updatePassDates(app.services, serial, { expirationDate: passed });
      expect(await (await app.fetch(`/api/v1/passes/verify?serial=${serial}`)).json()).toMatchObject({
        status: 'active',
        expirationDate: passed.toISOString(),
        expired: true,
      });
      const page = await app.fetch(`/verify?serial=${serial}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<h1 id="verdict">Expired</h1>');
    });

    it('accepts the serial in capitals, as some scanners print it', async () => {
      const { pass } = await claimAndDownload(app);
      const response = await app.fetch(`/api/v1/passes/verify?serial=${(pass.passJson.serialNumber as string).toUpperCase()}`);
      expect(response.status).toBe(200);
    });

    it('answers 404 pass_not_found for a serial this service never issued', async () => {
      const response = await app.fetch('/api/v1/passes/verify?serial=00000000-0000-4000-8000-000000000000');
      expect(response.status).toBe(404);
      expect(await problemOf(response)).toMatchObject({ code: 'pass_not_found', status: 404 });
    });

    it('answers 400 invalid_request naming the field for a missing or malformed serial', async () => {
      for (const query of ['', '?serial=', '?serial=nope', '?serial=00000000-0000-4000-8000-00000000000']) {
        const response = await app.fetch(`/api/v1/passes/verify${query}`);
        expect(response.status, query).toBe(400);
        const problem = await problemOf(response);
        expect(problem.code).toBe('invalid_request');
        expect(problem.fields).toEqual([{ field: 'serial', message: expect.any(String) }]);
      }
    });

    it('does not take a download id for a serial', async () => {
      const { passId } = await claimAndDownload(app);
      expect((await app.fetch(`/api/v1/passes/verify?serial=${passId}`)).status).toBe(400);
    });

    it('answers a preflight for any origin', async () => {
      const response = await app.fetch('/api/v1/passes/verify', { method: 'OPTIONS', headers: { origin: 'https://elsewhere.example' } });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    });
  });

  describe("GET /verify (the page a pass's QR code opens)", () => {
    it('answers 200 with an HTML page saying the pass is genuine, for which wallet, without any script', async () => {
      const { pass, wallet } = await claimAndDownload(app, 'HyperPay');
      const response = await app.fetch(new URL(pass.passJson.barcodes[0].message).pathname + new URL(pass.passJson.barcodes[0].message).search);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'sha256-/);
      const html = await response.text();
      expect(html).toContain('<h1 id="verdict">Genuine pass</h1>');
      expect(html).toContain('Issued by Door Test Club');
      expect(html).toContain(wallet.publicKey);
      expect(html).toContain('<dd>HyperPay</dd>');
      expect(html).not.toContain('<script');
    });

    it('answers 404 "Not issued here" for an unknown, malformed or missing serial', async () => {
      for (const query of ['?serial=00000000-0000-4000-8000-000000000000', '?serial=nope', '']) {
        const response = await app.fetch(`/verify${query}`);
        expect(response.status, query).toBe(404);
        expect(await response.text()).toContain('<h1 id="verdict">Not issued here</h1>');
      }
    });
  });

  describe('GET /api/v1/passes/google without Google Wallet configured', () => {
    it('answers 404 google_wallet_not_configured, which the client reads as "no link"', async () => {
      const { passId } = await claimAndDownload(app);
      const response = await app.fetch(`/api/v1/passes/google?pass=${passId}`);
      expect(response.status).toBe(404);
      expect(await problemOf(response)).toMatchObject({ code: 'google_wallet_not_configured', status: 404 });
      expect(await clientOf(app).googleSaveUrl(`${BASE}/download?pass=${passId}`)).toBeNull();
    });
  });

  it('is what the typed client reads from the verify endpoint', async () => {
    const { pass, wallet } = await claimAndDownload(app);
    expect(await clientOf(app).verifyPass(pass.passJson.serialNumber)).toMatchObject({ genuine: true, publicKey: wallet.publicKey });
    await expect(clientOf(app).verifyPass('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({ code: 'pass_not_found', status: 404 });
  });
});

describe.each(BACKENDS)('the scanner check with its database gone, on %s', (backend) => {
  it('answers 503: the page says it cannot check, the JSON is service_unavailable', async () => {
    const app = await TestApp.open(backend, { PUBLIC_BASE_URL: BASE, DATABASE_TIMEOUT_MS: '500' });
    try {
      await app.services.store.close();
      const page = await app.fetch('/verify?serial=00000000-0000-4000-8000-000000000000');
      expect(page.status).toBe(503);
      expect(await page.text()).toContain('Cannot check right now');
      const json = await app.fetch('/api/v1/passes/verify?serial=00000000-0000-4000-8000-000000000000');
      expect(json.status).toBe(503);
      expect((await problemOf(json)).code).toBe('service_unavailable');
    } finally {
      await app.close().catch(() => {});
    }
  });
});

describe.each(BACKENDS)('Save to Google Wallet on %s', (backend) => {
  let google: GoogleWalletApiStandIn;
  let account: TestServiceAccount;
  let app: TestApp;
  beforeAll(async () => {
    google = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID });
    account = google.serviceAccount;
    app = await TestApp.open(backend, {
      PUBLIC_BASE_URL: BASE,
      GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID,
      GOOGLE_SERVICE_ACCOUNT: account.json,
      GOOGLE_WALLET_API_URL: google.baseUrl,
    });
  });
  afterAll(async () => {
    await app.close();
    await google.close();
  });

  const verifiedPayload = async (saveUrl: string) => {
    expect(saveUrl.startsWith(GOOGLE_SAVE_URL)).toBe(true);
    const jwt = saveUrl.slice(GOOGLE_SAVE_URL.length);
    expect(jwt.length).toBeLessThan(1800);
    const { payload } = await jwtVerify(jwt, await importSPKI(account.publicKeyPem, 'RS256'), { issuer: account.clientEmail, audience: 'google' });
    return (payload as any).payload;
  };

  it('answers {"saveUrl"} for a pass id: the object is created through Google’s API first, and the link names it by id', async () => {
    const { passId, pass, wallet } = await claimAndDownload(app, 'Krystal');
    const response = await app.fetch(`/api/v1/passes/google?pass=${passId}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    expect(Object.keys(body)).toEqual(['saveUrl']);
    const objectId = `${TEST_ISSUER_ID}.${pass.passJson.serialNumber}`;
    expect(await verifiedPayload(body.saveUrl)).toEqual({ genericObjects: [{ id: objectId }] });
    const object = google.object(objectId)!;
    expect(object.state).toBe('ACTIVE');
    expect(object.hexBackgroundColor).toBe(designFor('Krystal').background);
    expect((object as any).linksModuleData.uris[0].description).toBe(wallet.publicKey);
    expect((object as any).barcode.value).toBe(pass.passJson.barcodes[0].message);
    // Asked again: the same object, not inserted twice.
    const inserts = google.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/genericObject')).length;
    expect(await verifiedPayload((await (await app.fetch(`/api/v1/passes/google?pass=${passId}`)).json()).saveUrl)).toEqual({
      genericObjects: [{ id: objectId }],
    });
    expect(google.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/genericObject')).length).toBe(inserts);
  });

  it('still gives a link when Google’s API does not answer: the link then carries the whole object', async () => {
    const { passId, pass, wallet } = await claimAndDownload(app, 'Krystal');
    google.failNext(5, 503);
    const response = await app.fetch(`/api/v1/passes/google?pass=${passId}`);
    expect(response.status).toBe(200);
    const [object] = (await verifiedPayload((await response.json()).saveUrl)).genericObjects;
    expect(object.id).toBe(`${TEST_ISSUER_ID}.${pass.passJson.serialNumber}`);
    expect(object.hexBackgroundColor).toBe(designFor('Krystal').background);
    expect(object.linksModuleData.uris[0].description).toBe(wallet.publicKey);
    expect(object.barcode.value).toBe(pass.passJson.barcodes[0].message);
    google.failNext(0, 503);
  });

  it('hands the claim page the link through the typed client', async () => {
    const { passId } = await claimAndDownload(app);
    const saveUrl = await clientOf(app).googleSaveUrl(`${BASE}/download?pass=${passId}`);
    expect(saveUrl).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\/[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it('answers 404 pass_not_found for an unknown or malformed pass id', async () => {
    for (const query of ['?pass=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '?pass=x', '']) {
      const response = await app.fetch(`/api/v1/passes/google${query}`);
      expect(response.status).toBe(404);
      expect((await problemOf(response)).code).toBe('pass_not_found');
    }
  });

  it('does not hand out a link for a public serial number', async () => {
    const { pass } = await claimAndDownload(app);
    const response = await app.fetch(`/api/v1/passes/google?pass=${pass.passJson.serialNumber}`);
    expect(response.status).toBe(404);
  });
});
