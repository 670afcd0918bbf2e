// A change to a live program reaches every pass of it, and no other: through the operator API, a
// program pass is claimed and drawn from its design (Apple file and Google object of the program's
// class), a device registers for it through the PassKit web service, the operator PATCHes the
// design, and the APNs stand-in gets the push, the device's "changed since" list names the pass,
// the latest file has a new ETag with the new colours and fields, and the Google stand-in's object
// follows. The device of another program's pass is never pushed.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApnsClient } from '@/lib/passes/apns';
import { applyProgramChange } from '@/lib/programs/programs';
import { eventually } from '@/scripts/support/server-process';
import { BACKENDS, TestApp, TestWallet } from '../support/app';
import { TEST_ISSUER_ID } from '../support/google';
import { inspectPkpass } from '../support/pkpass';
import { ApnsStandIn } from '../support/stand-ins/apns';
import { createCertificateAuthority, issuePassTypeCertificate } from '../support/stand-ins/certificates';
import { GoogleWalletApiStandIn } from '../support/stand-ins/google-wallet-api';
import { device, type InstalledPass, installPass, newPushToken } from './support';

const BASE = 'https://passes.example.com';

const GALA = {
  slug: 'winter-gala',
  name: 'Winter Gala',
  status: 'live',
  design: {
    style: 'eventTicket',
    logoText: 'Winter Gala',
    backgroundColor: '#102030',
    foregroundColor: '#ffffff',
    labelColor: '#ffcc00',
    fields: {
      primary: [{ key: 'holder', label: 'Guest', value: '{shortAddress}' }],
      secondary: [{ key: 'door', label: 'Door', value: 'A' }],
    },
    barcode: 'aztec',
  },
};

const GALA_CHANGED = {
  ...GALA.design,
  backgroundColor: '#802040',
  fields: {
    primary: [{ key: 'holder', label: 'Guest', value: '{shortAddress}' }],
    secondary: [{ key: 'door', label: 'Door', value: 'C (moved)' }],
    back: [{ key: 'note', label: 'Note', value: 'Pass {serialNumber}: the gala moved to hall C.' }],
  },
};

const CLUB = { slug: 'holders-club', name: 'Holders Club', status: 'live', design: { style: 'storeCard', backgroundColor: '#000000' } };

describe.each(BACKENDS)('a change to a live program on %s', (backend) => {
  let app: TestApp;
  let apns: ApnsStandIn;
  let google: GoogleWalletApiStandIn;
  let token: string;
  const operator = new TestWallet();

  beforeAll(async () => {
    apns = await ApnsStandIn.start();
    google = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID });
    app = await TestApp.open(backend, {
      PUBLIC_BASE_URL: BASE,
      OPERATOR_WALLETS: operator.publicKey,
      PASSKIT_TOKEN_KEY: randomBytes(32).toString('base64'),
      APNS_URL: apns.url,
      GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID,
      GOOGLE_SERVICE_ACCOUNT: google.serviceAccount.json,
      GOOGLE_WALLET_API_URL: google.baseUrl,
    });
    // The app's APNs client, given a pass type certificate for its topic and the stand-in's CA.
    const topic = app.services.living.passTypeIdentifier;
    const client = issuePassTypeCertificate(createCertificateAuthority('Test WWDR CA'), topic);
    app.services.living.apns = new ApnsClient({ url: apns.url, certPem: client.certPem, keyPem: client.keyPem, topic, ca: apns.caPem });
    token = await app.operatorToken(operator);
    await app.createProgram(token, GALA);
    await app.createProgram(token, CLUB);
  });
  afterAll(async () => {
    await app.close();
    await google.close();
    await apns.close();
  });

  const patchProgram = (slug: string, body: unknown) =>
    app.fetch(`/api/v1/operator/programs/${slug}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });

  /** The Save to Google Wallet link of an installed pass: it creates the pass's Google object. */
  const saveToGoogle = async (installed: InstalledPass) => {
    const passId = new URL(installed.downloadPath, BASE).searchParams.get('pass')!;
    const response = await app.fetch(`/api/v1/passes/google?pass=${passId}`);
    expect(response.status).toBe(200);
  };

  const pending = async (kinds: string[]) => {
    const [row] = await app.services.store.sql.query<{ n: number }>(
      `select count(*)::int as n from jobs where kind = any($1::text[]) and done_at is null and failed_at is null`,
      [kinds],
    );
    return row!.n;
  };

  it('draws a program’s pass from its design, names its file after the program, and puts its Google object in the program’s class', async () => {
    const installed = await installPass(app, new TestWallet(), GALA.slug);
    const json = installed.pass.passJson;
    expect(json).toMatchObject({ logoText: 'Winter Gala', organizationName: 'Winter Gala', backgroundColor: 'rgb(16, 32, 48)' });
    expect(json.eventTicket.secondaryFields).toEqual([{ key: 'door', label: 'Door', value: 'A' }]);
    expect(json.barcodes[0].format).toBe('PKBarcodeFormatAztec');
    expect(Object.keys(installed.pass.files)).toEqual(expect.arrayContaining(['icon.png', 'icon@2x.png', 'icon@3x.png']));
    expect(installed.pass.opensslVerify().ok).toBe(true);
    const download = await app.fetch(installed.downloadPath);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="winter-gala-pass.pkpass"');

    await saveToGoogle(installed);
    const object = google.object(`${TEST_ISSUER_ID}.${installed.serialNumber}`);
    expect(object).toMatchObject({
      classId: `${TEST_ISSUER_ID}.program_winter_gala`,
      hexBackgroundColor: '#102030',
      cardTitle: { defaultValue: { value: 'Winter Gala' } },
      barcode: { type: 'AZTEC' },
      state: 'ACTIVE',
    });
    expect(google.requests.some((r) => r.method === 'POST' && r.path === '/walletobjects/v1/genericClass' && r.status === 200)).toBe(true);
  });

  it('reaches the registered device, its changed-since list, its next file (new ETag) and Google; never another program’s device', async () => {
    const gala = await installPass(app, new TestWallet(), GALA.slug);
    const club = await installPass(app, new TestWallet(), CLUB.slug);
    await saveToGoogle(gala);
    const galaPhone = device(app, gala);
    const clubPhone = device(app, club);
    const galaToken = newPushToken();
    const clubToken = newPushToken();
    expect((await galaPhone.register(galaToken)).status).toBe(201);
    expect((await clubPhone.register(clubToken)).status).toBe(201);
    const galaTag = ((await (await galaPhone.list()).json()) as { lastUpdated: string }).lastUpdated;
    const clubTag = ((await (await clubPhone.list()).json()) as { lastUpdated: string }).lastUpdated;
    const before = await galaPhone.latest();
    expect(before.status).toBe(200);
    const etagBefore = before.headers.get('etag')!;
    const lastModified = before.headers.get('last-modified')!;
    const pushesBefore = apns.pushes.length;

    const patched = await patchProgram(GALA.slug, { design: GALA_CHANGED });
    expect(patched.status).toBe(200);

    await apns.waitForPushes(pushesBefore + 1, 10_000);
    expect(apns.pushes.slice(pushesBefore).map((push) => push.token)).toContain(galaToken);
    const objectId = `${TEST_ISSUER_ID}.${gala.serialNumber}`;
    const object = await eventually(
      async () => {
        const found = google.object(objectId);
        return found?.hexBackgroundColor === '#802040' ? found : undefined;
      },
      10_000,
      'the Google object updated',
    );
    expect(object).toMatchObject({
      classId: `${TEST_ISSUER_ID}.program_winter_gala`,
      textModulesData: [
        { id: 'door', header: 'Door', body: 'C (moved)' },
        { id: 'note', header: 'Note', body: `Pass ${gala.serialNumber}: the gala moved to hall C.` },
      ],
    });

    const listed = await galaPhone.list(galaTag);
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { serialNumbers: string[] }).serialNumbers).toEqual([gala.serialNumber]);

    const after = await galaPhone.latest({ 'if-modified-since': lastModified });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etagBefore);
    const file = inspectPkpass(Buffer.from(await after.arrayBuffer()));
    expect(file.opensslVerify().ok).toBe(true);
    expect(file.passJson).toMatchObject({
      backgroundColor: 'rgb(128, 32, 64)',
      authenticationToken: gala.authenticationToken,
      serialNumber: gala.serialNumber,
    });
    expect(file.passJson.eventTicket.secondaryFields).toEqual([{ key: 'door', label: 'Door', value: 'C (moved)' }]);
    expect(file.passJson.eventTicket.backFields).toEqual([{ key: 'note', label: 'Note', value: `Pass ${gala.serialNumber}: the gala moved to hall C.` }]);
    // The download link serves the same new file.
    const downloaded = await app.fetch(gala.downloadPath);
    expect(downloaded.headers.get('etag')).toBe(after.headers.get('etag'));

    // The fan-out is over: nothing of it waits, and the other program's device was never pushed nor told of a change.
    await eventually(
      async () => ((await pending(['update.plan', 'update.batch', 'pass.changed', 'apns.push', 'google.object.sync'])) === 0 ? true : undefined),
      10_000,
      'the fan-out done',
    );
    expect(apns.pushes.map((push) => push.token)).not.toContain(clubToken);
    expect((await clubPhone.list(clubTag)).status).toBe(204);
    const clubFile = inspectPkpass(Buffer.from(await (await clubPhone.latest()).arrayBuffer()));
    expect(clubFile.passJson.backgroundColor).toBe('rgb(0, 0, 0)');
  });

  it('carries the program’s images (the generic icon while it has none of its own), and an image change is a new file', async () => {
    const installed = await installPass(app, new TestWallet(), CLUB.slug);
    const genericIcon = readFileSync(path.join(process.cwd(), 'lib/passes/assets/generic/icon.png'));
    expect(Object.keys(installed.pass.files).sort()).toEqual(['icon.png', 'icon@2x.png', 'icon@3x.png', 'manifest.json', 'pass.json', 'signature']);
    expect(installed.pass.files['icon.png']!.equals(genericIcon)).toBe(true);
    const etagBefore = (await app.fetch(installed.downloadPath)).headers.get('etag');

    // Images as an upload stores them (lib/db/program-images.ts), and the program's version moved with them.
    const phantom = (file: string) => readFileSync(path.join(process.cwd(), 'lib/passes/assets/phantom', file));
    for (const [kind, file] of [
      ['icon', 'icon.png'],
      ['icon', 'icon@2x.png'],
      ['logo', 'logo.png'],
    ] as const) {
      const bytes = phantom(file);
      await app.services.store.sql.query(`insert into program_images (program, kind, file, bytes, sha1, width, height) values ($1, $2, $3, $4, $5, 1, 1)`, [
        CLUB.slug,
        kind,
        file,
        bytes,
        createHash('sha1').update(bytes).digest('hex'),
      ]);
    }
    await applyProgramChange(app.services, CLUB.slug, {}, true);

    const download = await app.fetch(installed.downloadPath);
    expect(download.headers.get('etag')).not.toBe(etagBefore);
    const bytes = Buffer.from(await download.arrayBuffer());
    const file = inspectPkpass(bytes);
    expect(Object.keys(file.files).sort()).toEqual(['icon.png', 'icon@2x.png', 'logo.png', 'manifest.json', 'pass.json', 'signature']);
    expect(file.files['icon.png']!.equals(phantom('icon.png'))).toBe(true);
    expect(file.files['logo.png']!.equals(phantom('logo.png'))).toBe(true);
    expect(file.manifestMismatches).toEqual([]);
    expect(file.opensslVerify().ok).toBe(true);
    // The same version of the pass and program: the same bytes again.
    expect(Buffer.from(await (await app.fetch(installed.downloadPath)).arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('pushes no device when a change leaves what passes show as it was (the status)', async () => {
    const gala = await installPass(app, new TestWallet(), GALA.slug);
    const phone = device(app, gala);
    const pushToken = newPushToken();
    expect((await phone.register(pushToken)).status).toBe(201);
    const tag = ((await (await phone.list()).json()) as { lastUpdated: string }).lastUpdated;
    expect((await patchProgram(GALA.slug, { closesAt: '2099-01-01T00:00:00Z' })).status).toBe(200);
    await eventually(
      async () => ((await pending(['update.plan', 'update.batch', 'pass.changed', 'apns.push', 'google.object.sync'])) === 0 ? true : undefined),
      10_000,
      'the queue idle',
    );
    expect(apns.pushes.map((push) => push.token)).not.toContain(pushToken);
    expect((await phone.list(tag)).status).toBe(204);
  });
});
