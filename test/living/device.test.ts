// A device, step by step as Apple's PassKit web service reference describes Wallet's side, against
// the real server process (production build), with the APNs stand-in (HTTP/2 over TLS, trusted
// through NODE_EXTRA_CA_CERTS, checking the client certificate) and the Google Wallet API
// stand-in:
// install the pass → register (201, again 200) → a bad token is 401 → list (200, then 204 with the
// tag) → get the pass (If-Modified-Since: 304) → the pass is voided (voidPass, on the database the
// server uses) → the push arrives (path, topic, body {}, the pass type certificate) → list has the
// serial → get: "voided": true → Google's object is INACTIVE → a token APNs calls gone loses its
// registration → unregister → log. Needs the machine's PostgreSQL (TEST_DATABASE_URL): the test
// process changes the pass in the database the server process uses.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevelopmentChain } from '@/lib/passes/certificates';
import { createScratchDatabase, templateDatabase } from '@/scripts/support/scratch-database';
import { eventually, ServerProcess } from '@/scripts/support/server-process';
import { missingEnv, requireService, sharedPostgresUrl } from '../scale/support/requirements';
import { TEST_ISSUER_ID } from '../support/google';
import { inspectPkpass } from '../support/pkpass';
import { freePort } from '../support/server';
import { ApnsStandIn } from '../support/stand-ins/apns';
import { GoogleWalletApiStandIn } from '../support/stand-ins/google-wallet-api';
import { device, type InstalledPass, installPass, newPushToken, PassController } from './support';

requireService('PostgreSQL', missingEnv('TEST_DATABASE_URL', 'postgres://127.0.0.1:5432/test'), 'The device simulation');

describe('a device living with its pass (server process, APNs and Google stand-ins)', () => {
  let dataDir: string;
  let apns: ApnsStandIn;
  let google: GoogleWalletApiStandIn;
  let server: ServerProcess;
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let passes: PassController;
  let installed: InstalledPass;
  let phone: ReturnType<typeof device>;
  const pushToken = newPushToken();
  let tag: string;
  let lastModified: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-living-'));
    // The development chain the server will sign with: its CA is what APNs must see the client certificate chain to.
    const signing = ensureDevelopmentChain(dataDir);
    apns = await ApnsStandIn.start({ clientCa: signing.wwdrCertPem, topic: signing.passTypeIdentifier });
    google = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID });
    database = await createScratchDatabase(sharedPostgresUrl(), templateDatabase());
    const port = await freePort();
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_PER_MINUTE: '0',
      APNS_URL: apns.url,
      NODE_EXTRA_CA_CERTS: apns.caFile,
      GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID,
      GOOGLE_SERVICE_ACCOUNT: google.serviceAccount.json,
      GOOGLE_WALLET_API_URL: google.baseUrl,
      JOB_RETRY_BASE_MS: '200',
    };
    server = await ServerProcess.start(port, env);
    passes = await PassController.open(env);
  });

  afterAll(async () => {
    await server?.stop();
    await passes?.close();
    await database?.drop();
    await apns?.close();
    await google?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('1. installs a living pass: webServiceURL and authenticationToken in the signed pass.json', async () => {
    installed = await installPass(server);
    phone = device(server, installed);
    expect(installed.webServiceURL).toBe(`${server.baseUrl}/passkit`);
    expect(installed.authenticationToken.length).toBeGreaterThanOrEqual(32);
    expect(installed.pass.opensslVerify().ok).toBe(true);
  });

  it('2. registers the device: 201, then 200; a bad token is 401', async () => {
    expect((await phone.register(pushToken)).status).toBe(201);
    expect((await phone.register(pushToken)).status).toBe(200);
    expect((await phone.register(pushToken, 'A'.repeat(43))).status).toBe(401);
  });

  it('3. lists its passes (200 with a tag), then 204 with that tag', async () => {
    const listed = await phone.list();
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { serialNumbers: string[]; lastUpdated: string };
    expect(body.serialNumbers).toEqual([installed.serialNumber]);
    tag = body.lastUpdated;
    expect((await phone.list(tag)).status).toBe(204);
  });

  it('4. gets the pass with Last-Modified, and 304 with If-Modified-Since', async () => {
    const response = await phone.latest();
    expect(response.status).toBe(200);
    lastModified = response.headers.get('last-modified')!;
    expect(lastModified).toMatch(/GMT$/);
    expect((await phone.latest({ 'if-modified-since': lastModified })).status).toBe(304);
  });

  it('5. the Save to Google Wallet link creates the Generic object first and names it by id', async () => {
    const passId = new URL(installed.downloadPath, server.baseUrl).searchParams.get('pass')!;
    const response = await server.fetch(`/api/v1/passes/google?pass=${passId}`);
    expect(response.status).toBe(200);
    const { saveUrl } = (await response.json()) as { saveUrl: string };
    const objectId = `${TEST_ISSUER_ID}.${installed.serialNumber}`;
    expect(google.object(objectId)).toMatchObject({ id: objectId, state: 'ACTIVE' });
    expect(google.requests.some((r) => r.method === 'POST' && r.path === '/walletobjects/v1/genericObject' && r.status === 200)).toBe(true);
    const payload = JSON.parse(Buffer.from(saveUrl.split('/').pop()!.split('.')[1]!, 'base64url').toString('utf8'));
    expect(payload.payload).toEqual({ genericObjects: [{ id: objectId }] });
  });

  it('6. the pass is voided: the push reaches APNs as Apple documents it', async () => {
    const before = apns.pushes.length;
    expect((await passes.void(installed.serialNumber, 'ticket refunded')).changed).toBe(true);
    const [push] = (await apns.waitForPushes(before + 1, 10_000)).slice(before);
    expect(push).toMatchObject({
      method: 'POST',
      path: `/3/device/${pushToken}`,
      token: pushToken,
      topic: installed.passTypeIdentifier,
      body: '{}',
      status: 200,
    });
    expect(push!.clientCert).toMatchObject({ authorized: true });
    expect(push!.clientCert!.subject).toContain(`UID=${installed.passTypeIdentifier}`);
  });

  it('7. after the push, the list has the serial and the latest pass is voided', async () => {
    const listed = await phone.list(tag);
    expect(listed.status).toBe(200);
    const body = (await listed.json()) as { serialNumbers: string[]; lastUpdated: string };
    expect(body.serialNumbers).toEqual([installed.serialNumber]);
    expect(BigInt(body.lastUpdated)).toBeGreaterThan(BigInt(tag));
    const response = await phone.latest({ 'if-modified-since': lastModified });
    expect(response.status).toBe(200);
    const pass = inspectPkpass(Buffer.from(await response.arrayBuffer()));
    expect(pass.passJson.voided).toBe(true);
    expect(pass.passJson.authenticationToken).toBe(installed.authenticationToken);
    expect(pass.opensslVerify().ok).toBe(true);
    const download = inspectPkpass(Buffer.from(await (await server.fetch(installed.downloadPath)).arrayBuffer()));
    expect(download.passJson.voided).toBe(true);
  });

  it('8. Google Wallet follows: the object is PATCHed to INACTIVE, and ACTIVE again on restore', async () => {
    const objectId = `${TEST_ISSUER_ID}.${installed.serialNumber}`;
    await eventually(async () => (google.object(objectId)?.state === 'INACTIVE' ? true : undefined), 10_000, 'object INACTIVE');
    expect(google.requests.some((r) => r.method === 'PATCH' && r.path === `/walletobjects/v1/genericObject/${objectId}` && r.status === 200)).toBe(true);
    const pushesBefore = apns.pushes.length;
    expect((await passes.restore(installed.serialNumber)).changed).toBe(true);
    await eventually(async () => (google.object(objectId)?.state === 'ACTIVE' ? true : undefined), 10_000, 'object ACTIVE');
    await apns.waitForPushes(pushesBefore + 1, 10_000);
  });

  it('8b. an expiry and a relevant date reach the phone and Google Wallet; removed, they go from both', async () => {
    const objectId = `${TEST_ISSUER_ID}.${installed.serialNumber}`;
    const pushesBefore = apns.pushes.length;
    const expirationDate = new Date('2030-06-01T16:00:00Z');
    expect((await passes.setDates(installed.serialNumber, { expirationDate, relevantDate: new Date('2030-05-31T20:00:00Z') })).changed).toBe(true);
    await apns.waitForPushes(pushesBefore + 1, 10_000);
    const latest = inspectPkpass(Buffer.from(await (await phone.latest()).arrayBuffer()));
    expect(latest.passJson).toMatchObject({ expirationDate: '2030-06-01T16:00:00.000Z', relevantDate: '2030-05-31T20:00:00.000Z' });
    expect(latest.opensslVerify().ok).toBe(true);
    await eventually(async () => (google.object(objectId)?.validTimeInterval ? true : undefined), 10_000, 'object with an interval');
    expect(google.object(objectId)!.validTimeInterval).toEqual({ end: { date: expirationDate.toISOString() } });

    expect((await passes.setDates(installed.serialNumber, { expirationDate: null, relevantDate: null })).changed).toBe(true);
    await apns.waitForPushes(pushesBefore + 2, 10_000);
    await eventually(
      async () => (google.object(objectId) && !('validTimeInterval' in google.object(objectId)!) ? true : undefined),
      10_000,
      'interval removed',
    );
    const cleared = inspectPkpass(Buffer.from(await (await phone.latest()).arrayBuffer())).passJson;
    expect(cleared.expirationDate).toBeUndefined();
    expect(cleared.relevantDate).toBeUndefined();
  });

  it('9. a push answered 410 removes that registration; other devices keep theirs', async () => {
    const gone = device(server, installed);
    const goneToken = newPushToken();
    apns.answer(goneToken, { status: 410, reason: 'Unregistered' });
    expect((await gone.register(goneToken)).status).toBe(201);
    const before = apns.pushes.length;
    expect((await passes.void(installed.serialNumber, 'second void')).changed).toBe(true);
    const pushes = (await apns.waitForPushes(before + 2, 10_000)).slice(before);
    expect(pushes.map((p) => p.token).sort()).toEqual([goneToken, pushToken].sort());
    // The gone device's registration is removed: its list is empty; the phone's is not.
    await eventually(async () => ((await gone.list()).status === 204 ? true : undefined), 10_000, 'registration of the gone token removed');
    expect((await phone.list()).status).toBe(200);
  });

  it('10. unregisters (200), and logs (200)', async () => {
    expect((await phone.unregister()).status).toBe(200);
    expect((await phone.list()).status).toBe(204);
    expect((await phone.log(['Web service error for pass: test entry'])).status).toBe(200);
    await server.waitForLog((line) => line.event === 'passkit_device_log');
    expect(readFileSync(apns.caFile, 'utf8')).toContain('BEGIN CERTIFICATE');
  });
});
