// Apple's PassKit web service as Wallet uses it, through the endpoint table on a real database:
// the pass carries its webServiceURL and token, a device registers (201, then 200, one row),
// lists its changed passes with tags, fetches the latest file (304 with If-Modified-Since), and a
// change (voided, restored) rebuilds the file that /download and the web service serve. The bounds
// on a pass's devices (the cap, the rate limit, tokens APNs refuses) push to the APNs stand-in from
// this process, its client given the stand-in's CA; pushes from a server process are ./device.test.ts's.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApnsClient } from '@/lib/passes/apns';
import { tokenHash } from '@/lib/passes/authentication-token';
import { restorePass, voidPass } from '@/lib/passes/lifecycle';
import { newWebhookMessageId, WEBHOOK_JOB } from '@/lib/webhooks';
import { BACKENDS, TestApp } from '../support/app';
import { inspectPkpass } from '../support/pkpass';
import { ApnsStandIn } from '../support/stand-ins/apns';
import { createCertificateAuthority, issuePassTypeCertificate } from '../support/stand-ins/certificates';
import { newWebhookSecret, WebhookReceiver } from '../support/stand-ins/webhook-receiver';
import { device, installPass, PASSKIT } from './support';

const BASE = 'https://passes.example.com';

const deviceId = () => randomBytes(16).toString('hex');
const pushToken = () => randomBytes(32).toString('hex');

describe.each(BACKENDS)('the PassKit web service on %s', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.open(backend, {
      PUBLIC_BASE_URL: BASE,
      PASSKIT_TOKEN_KEY: randomBytes(32).toString('base64'),
      // Pushes are ./device.test.ts's: here they go nowhere, at once.
      APNS_URL: 'https://127.0.0.1:9',
    });
  });
  afterAll(() => app.close());

  /** A claimed and downloaded pass: what Wallet knows of it. */
  const installedPass = async () => {
    const installed = await installPass(app);
    return { ...installed, downloadUrl: `${BASE}${installed.downloadPath}`, download: await app.fetch(installed.downloadPath) };
  };

  const register = (device: string, passType: string, serial: string, token: string | undefined, push = pushToken()) =>
    app.fetch(`${PASSKIT}/devices/${device}/registrations/${passType}/${serial}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token !== undefined ? { authorization: `ApplePass ${token}` } : {}) },
      body: JSON.stringify({ pushToken: push }),
    });

  const list = (device: string, passType: string, tag?: string) =>
    app.fetch(`${PASSKIT}/devices/${device}/registrations/${passType}${tag ? `?passesUpdatedSince=${tag}` : ''}`);

  const latest = (passType: string, serial: string, token: string, headers: Record<string, string> = {}) =>
    app.fetch(`${PASSKIT}/passes/${passType}/${serial}`, { headers: { authorization: `ApplePass ${token}`, ...headers } });

  it('puts webServiceURL (PUBLIC_BASE_URL/passkit) and a per-pass token of at least 32 characters in the signed pass; only its hash is stored', async () => {
    const first = await installedPass();
    const second = await installedPass();
    expect(first.webServiceURL).toBe(`${BASE}/passkit`);
    expect(first.authenticationToken.length).toBeGreaterThanOrEqual(32);
    expect(first.authenticationToken).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(second.authenticationToken).not.toBe(first.authenticationToken);
    expect(first.pass.opensslVerify().ok).toBe(true);
    const [row] = await app.services.store.sql.query<Record<string, unknown>>(`select * from passes where serial_number = $1`, [first.serialNumber]);
    expect(row!.auth_token_hash).toBe(tokenHash(first.authenticationToken));
    expect(JSON.stringify(row)).not.toContain(first.authenticationToken);
  });

  it('registers a device: 201, again 200 with one row, 401 without the token or with another pass’s', async () => {
    const installed = await installedPass();
    const other = await installedPass();
    const device = deviceId();
    const { passTypeIdentifier: type, serialNumber: serial } = installed;

    expect((await register(device, type, serial, undefined)).status).toBe(401);
    expect((await register(device, type, serial, other.authenticationToken)).status).toBe(401);
    expect((await register(device, type, serial, `${installed.authenticationToken}x`)).status).toBe(401);
    expect((await register(device, 'pass.com.other.type', serial, installed.authenticationToken)).status).toBe(401);
    const unknown = await register(device, type, '00000000-0000-4000-8000-000000000000', installed.authenticationToken);
    expect(unknown.status).toBe(401);
    expect((await unknown.json()).code).toBe('unauthorized');

    expect((await register(device, type, serial, installed.authenticationToken)).status).toBe(201);
    const newToken = pushToken();
    expect((await register(device, type, serial, installed.authenticationToken, newToken)).status).toBe(200);
    const rows = await app.services.store.sql.query<{ push_token: string }>(`select push_token from device_registrations where serial_number = $1`, [serial]);
    expect(rows).toEqual([{ push_token: newToken }]);

    const bad = await app.fetch(`${PASSKIT}/devices/${device}/registrations/${type}/${serial}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `ApplePass ${installed.authenticationToken}` },
      body: JSON.stringify({ pushToken: 'not hex' }),
    });
    expect(bad.status).toBe(400);
  });

  it('lists the device’s passes: all without a tag, then 204 with the tag; a change lists the pass again, with a newer tag', async () => {
    const a = await installedPass();
    const b = await installedPass();
    const device = deviceId();
    const type = a.passTypeIdentifier;
    expect((await list(device, type)).status).toBe(204); // nothing registered yet
    expect((await register(device, type, a.serialNumber, a.authenticationToken)).status).toBe(201);
    expect((await register(device, type, b.serialNumber, b.authenticationToken)).status).toBe(201);

    const all = await list(device, type);
    expect(all.status).toBe(200);
    const first = (await all.json()) as { serialNumbers: string[]; lastUpdated: string };
    expect(first.serialNumbers.sort()).toEqual([a.serialNumber, b.serialNumber].sort());
    expect(first.lastUpdated).toMatch(/^\d+$/);
    expect((await list(device, type, first.lastUpdated)).status).toBe(204);
    expect((await list(device, 'pass.com.other.type')).status).toBe(204);

    await voidPass(app.services, b.serialNumber, 'lost');
    const changed = await list(device, type, first.lastUpdated);
    expect(changed.status).toBe(200);
    const second = (await changed.json()) as { serialNumbers: string[]; lastUpdated: string };
    expect(second.serialNumbers).toEqual([b.serialNumber]);
    expect(BigInt(second.lastUpdated)).toBeGreaterThan(BigInt(first.lastUpdated));
    expect((await list(device, type, second.lastUpdated)).status).toBe(204);
    // A tag this service never handed out counts as none: everything is listed.
    expect(((await (await list(device, type, 'garbage')).json()) as { serialNumbers: string[] }).serialNumbers).toHaveLength(2);
  });

  it('serves the latest pass with Last-Modified; 304 for If-Modified-Since at or after it; 401 with a bad token', async () => {
    const installed = await installedPass();
    const { passTypeIdentifier: type, serialNumber: serial, authenticationToken: token } = installed;
    const response = await latest(type, serial, token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/vnd.apple.pkpass');
    const lastModified = response.headers.get('last-modified')!;
    expect(new Date(lastModified).toUTCString()).toBe(lastModified);
    // The same bytes as the download: nothing changed, nothing was rebuilt.
    expect(
      Buffer.from(await response.arrayBuffer()).equals(
        Buffer.from(await (await app.fetch(new URL(installed.downloadUrl).pathname + new URL(installed.downloadUrl).search)).arrayBuffer()),
      ),
    ).toBe(true);

    expect((await latest(type, serial, token, { 'if-modified-since': lastModified })).status).toBe(304);
    const later = new Date(Date.parse(lastModified) + 3_600_000).toUTCString();
    expect((await latest(type, serial, token, { 'if-modified-since': later })).status).toBe(304);
    const earlier = new Date(Date.parse(lastModified) - 1000).toUTCString();
    expect((await latest(type, serial, token, { 'if-modified-since': earlier })).status).toBe(200);
    expect((await latest(type, serial, token, { 'if-modified-since': 'not a date' })).status).toBe(200);
    expect((await latest(type, serial, 'x'.repeat(43))).status).toBe(401);
    expect((await app.fetch(`${PASSKIT}/passes/${type}/${serial}`)).status).toBe(401);
  });

  it('rebuilds a changed pass: voided → "voided": true, a new ETag and Last-Modified, the same token; restored → active again; unchanged → the same bytes', async () => {
    const installed = await installedPass();
    const { passTypeIdentifier: type, serialNumber: serial, authenticationToken: token } = installed;
    const downloadPath = new URL(installed.downloadUrl).pathname + new URL(installed.downloadUrl).search;
    const before = installed.download;
    const beforeModified = (await latest(type, serial, token)).headers.get('last-modified')!;

    await voidPass(app.services, serial, 'refunded');
    // The device's copy is older now: If-Modified-Since with its date gets the new file.
    const fetched = await latest(type, serial, token, { 'if-modified-since': beforeModified });
    expect(fetched.status).toBe(200);
    const voided = inspectPkpass(Buffer.from(await fetched.arrayBuffer()));
    expect(voided.passJson.voided).toBe(true);
    expect(voided.passJson.authenticationToken).toBe(token);
    expect(voided.opensslVerify().ok).toBe(true);
    expect(Date.parse(fetched.headers.get('last-modified')!)).toBeGreaterThan(Date.parse(beforeModified));

    const download = await app.fetch(downloadPath);
    expect(download.headers.get('etag')).not.toBe(before.headers.get('etag'));
    expect(download.headers.get('etag')).toBe(fetched.headers.get('etag'));
    expect(inspectPkpass(Buffer.from(await download.arrayBuffer())).passJson.voided).toBe(true);
    // Unchanged since: the same bytes again, and a 304 for the old ETag's successor.
    expect((await app.fetch(downloadPath, { headers: { 'if-none-match': download.headers.get('etag')! } })).status).toBe(304);

    await restorePass(app.services, serial);
    const restored = await app.fetch(downloadPath);
    const restoredPass = inspectPkpass(Buffer.from(await restored.arrayBuffer()));
    expect(restoredPass.passJson.voided).toBeUndefined();
    expect(restored.headers.get('etag')).not.toBe(download.headers.get('etag'));
    expect(restoredPass.opensslVerify().ok).toBe(true);
  });

  it('serves a changed pass byte for byte the same after a restart, though its file is kept in memory only', async () => {
    const installed = await installedPass();
    const { passTypeIdentifier: type, serialNumber: serial, authenticationToken: token } = installed;
    const downloadPath = new URL(installed.downloadUrl).pathname + new URL(installed.downloadUrl).search;
    await voidPass(app.services, serial, 'lost');
    const first = await latest(type, serial, token);
    const bytes = Buffer.from(await first.arrayBuffer());
    // A recorded ETag another build gave (other settings, or a file signed at another time) is replaced by the rebuild's.
    await app.services.store.sql.query(`update passes set pkpass_etag = '"other"' where serial_number = $1`, [serial]);
    await app.restart();
    const again = await latest(type, serial, token);
    expect(Buffer.from(await again.arrayBuffer()).equals(bytes)).toBe(true);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(again.headers.get('last-modified')).toBe(first.headers.get('last-modified'));
    const download = await app.fetch(downloadPath);
    expect(Buffer.from(await download.arrayBuffer()).equals(bytes)).toBe(true);
    const [row] = await app.services.store.sql.query<Record<string, unknown>>(`select * from passes where serial_number = $1`, [serial]);
    expect(row!.pkpass_etag).toBe(first.headers.get('etag'));
    expect(Object.values(row!).some((value) => Buffer.isBuffer(value) || value instanceof Uint8Array)).toBe(false);
  });

  it('says in the scanner check whether the pass is valid now', async () => {
    const installed = await installedPass();
    const check = async () => (await app.fetch(`/api/v1/passes/verify?serial=${installed.serialNumber}`)).json();
    expect(await check()).toMatchObject({ genuine: true, status: 'active', voidReason: null });
    await voidPass(app.services, installed.serialNumber, 'not_eligible');
    expect(await check()).toMatchObject({ status: 'voided', voidReason: 'not_eligible' });
    const page = await app.fetch(`/verify?serial=${installed.serialNumber}`);
    const html = await page.text();
    expect(html).toContain('<h1 id="verdict">Voided</h1>');
    expect(html).not.toMatch(/Genuine pass|valid/i);
  });

  it('unregisters (200, and again 200) and takes device logs (200)', async () => {
    const installed = await installedPass();
    const device = deviceId();
    const path = `${PASSKIT}/devices/${device}/registrations/${installed.passTypeIdentifier}/${installed.serialNumber}`;
    expect((await register(device, installed.passTypeIdentifier, installed.serialNumber, installed.authenticationToken)).status).toBe(201);
    expect((await app.fetch(path, { method: 'DELETE' })).status).toBe(401);
    expect((await app.fetch(path, { method: 'DELETE', headers: { authorization: `ApplePass ${installed.authenticationToken}` } })).status).toBe(200);
    expect((await list(device, installed.passTypeIdentifier)).status).toBe(204);
    expect((await app.fetch(path, { method: 'DELETE', headers: { authorization: `ApplePass ${installed.authenticationToken}` } })).status).toBe(200);

    const log = await app.fetch(`${PASSKIT}/log`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ logs: ['a problem'] }),
    });
    expect(log.status).toBe(200);
    expect((await app.fetch(`${PASSKIT}/log`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"logs": "no"}' })).status).toBe(400);
  });
});

describe('device webhook events', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.open('pglite', {
      PUBLIC_BASE_URL: BASE,
      APNS_URL: 'https://127.0.0.1:9',
      // Deliveries fail (nothing listens there) and wait for their retry: the queued events are what is checked.
      WEBHOOK_URL: 'http://127.0.0.1:9/hooks',
      WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
    });
  });
  afterAll(() => app.close());

  const events = (type: string, serial: string) =>
    app.services.store.sql.query<{ data: Record<string, string> }>(
      `select payload->'data' as data from jobs where kind = 'webhook' and payload->>'type' = $1 and payload->'data'->>'serialNumber' = $2`,
      [type, serial],
    );

  it('enqueues device.registered once per new registration and device.unregistered when one is removed, never with the download id', async () => {
    const installed = await installPass(app);
    const phone = device(app, installed);
    expect((await phone.register(randomBytes(32).toString('hex'))).status).toBe(201);
    expect((await phone.register(randomBytes(32).toString('hex'))).status).toBe(200);
    const registered = await events('device.registered', installed.serialNumber);
    expect(registered.map((e) => e.data)).toEqual([
      {
        serialNumber: installed.serialNumber,
        publicKey: installed.wallet.publicKey,
        program: 'default',
        walletType: 'Generic',
        deviceLibraryIdentifier: phone.deviceId,
      },
    ]);
    expect((await phone.unregister()).status).toBe(200);
    expect((await phone.unregister()).status).toBe(200);
    expect((await events('device.unregistered', installed.serialNumber)).map((e) => e.data.deviceLibraryIdentifier)).toEqual([phone.deviceId]);
    const passId = new URL(installed.downloadPath, BASE).searchParams.get('pass')!;
    const [{ count }] = (await app.services.store.sql.query<{ count: number }>(`select count(*)::int as count from jobs where payload::text like $1`, [
      `%${passId}%`,
    ])) as [{ count: number }];
    expect(count).toBe(0);
  });
});

/**
 * Points the app's APNs client at the stand-in with a pass type certificate for its topic. This
 * process does not trust the stand-in's certificate through NODE_EXTRA_CA_CERTS: the client is given the CA.
 */
function pushThroughStandIn(app: TestApp, apns: ApnsStandIn): void {
  const topic = app.services.living.passTypeIdentifier;
  const client = issuePassTypeCertificate(createCertificateAuthority('Test WWDR CA'), topic);
  app.services.living.apns = new ApnsClient({ url: apns.url, certPem: client.certPem, keyPem: client.keyPem, topic, ca: apns.caPem });
}

describe.each(BACKENDS)('bounds on the devices of a pass on %s', (backend) => {
  let app: TestApp;
  let apns: ApnsStandIn;
  beforeAll(async () => {
    apns = await ApnsStandIn.start();
    app = await TestApp.open(backend, {
      PUBLIC_BASE_URL: BASE,
      APNS_URL: apns.url,
      DEVICES_PER_PASS: '3',
      RATE_LIMIT_PER_MINUTE: '30',
      WEBHOOK_URL: 'http://127.0.0.1:9/hooks',
      WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
    });
    pushThroughStandIn(app, apns);
  });
  afterAll(async () => {
    await app.close();
    await apns.close();
  });

  const registrations = (serial: string) =>
    app.services.store.sql.query<{ device: string; push_token: string }>(
      `select device_library_identifier as device, push_token from device_registrations where serial_number = $1 order by created_at`,
      [serial],
    );

  const unregisteredEvents = (serial: string) =>
    app.services.store.sql.query<{ data: Record<string, string> }>(
      `select payload->'data' as data from jobs where kind = 'webhook' and payload->>'type' = 'device.unregistered' and payload->'data'->>'serialNumber' = $1`,
      [serial],
    );

  it('keeps at most DEVICES_PER_PASS registrations: a new device past it replaces the oldest, with device.unregistered (reason device_limit)', async () => {
    const installed = await installPass(app);
    const phones = Array.from({ length: 5 }, () => device(app, installed));
    for (const phone of phones) {
      expect((await phone.register(randomBytes(32).toString('hex'))).status).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 2)); // registration times a millisecond apart at least: "oldest" is one
    }
    // Registering again is no new device: nothing is replaced.
    expect((await phones[4]!.register(randomBytes(32).toString('hex'))).status).toBe(200);
    expect((await registrations(installed.serialNumber)).map((row) => row.device)).toEqual(phones.slice(2).map((phone) => phone.deviceId));
    const events = await unregisteredEvents(installed.serialNumber);
    expect(events.map((event) => event.data).sort((a, b) => a.deviceLibraryIdentifier!.localeCompare(b.deviceLibraryIdentifier!))).toEqual(
      phones
        .slice(0, 2)
        .map((phone) => ({
          serialNumber: installed.serialNumber,
          publicKey: installed.wallet.publicKey,
          program: 'default',
          walletType: 'Generic',
          deviceLibraryIdentifier: phone.deviceId,
          reason: 'device_limit',
        }))
        .sort((a, b) => a.deviceLibraryIdentifier.localeCompare(b.deviceLibraryIdentifier)),
    );
    const [{ ids }] = (await app.services.store.sql.query<{ ids: string[] }>(
      `select array_agg(payload->>'id') as ids from jobs where kind = 'webhook' and payload->'data'->>'serialNumber' = $1`,
      [installed.serialNumber],
    )) as [{ ids: string[] }];
    for (const id of ids) expect(id).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('rate-limits register, unregister and log per client (RATE_LIMIT_PER_MINUTE)', async () => {
    const installed = await installPass(app);
    const phone = device(app, installed);
    const ip = '198.51.100.24';
    const path = `${PASSKIT}/devices/${phone.deviceId}/registrations/${installed.passTypeIdentifier}/${installed.serialNumber}`;
    const authorization = `ApplePass ${installed.authenticationToken}`;
    const calls = [
      () => app.fetch(path, { ip, method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ pushToken: 'ab' }) }),
      () => app.fetch(path, { ip, method: 'DELETE', headers: { authorization } }),
      () => app.fetch(`${PASSKIT}/log`, { ip, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ logs: ['x'] }) }),
    ];
    for (let i = 0; i < 30; i++) expect((await calls[i % 3]!()).status).toBeLessThan(300);
    for (const call of calls) {
      const refused = await call();
      expect(refused.status).toBe(429);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Another client has its own budget.
    expect((await phone.log(['y'])).status).toBe(200);
  });

  it('removes a registration APNs answers 400 BadDeviceToken or DeviceTokenNotForTopic, as on 410; keeps the others', async () => {
    const installed = await installPass(app);
    const [bad, otherTopic, good] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
    apns.answer(bad, { status: 400, reason: 'BadDeviceToken' });
    apns.answer(otherTopic, { status: 400, reason: 'DeviceTokenNotForTopic' });
    for (const token of [bad, otherTopic, good]) expect((await device(app, installed).register(token)).status).toBe(201);
    const before = apns.pushes.length;
    await voidPass(app.services, installed.serialNumber, 'lost');
    await apns.waitForPushes(before + 3);
    const deadline = Date.now() + 5_000;
    while ((await registrations(installed.serialNumber)).length > 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await registrations(installed.serialNumber)).map((row) => row.push_token)).toEqual([good]);
    const reasons = (await unregisteredEvents(installed.serialNumber)).map((event) => event.data.reason);
    expect(reasons).toEqual(['push_token_gone', 'push_token_gone']);
  });
});

describe.each(BACKENDS)('pushes within the device cap on %s', (backend) => {
  let app: TestApp;
  let apns: ApnsStandIn;
  beforeAll(async () => {
    apns = await ApnsStandIn.start();
    app = await TestApp.open(backend, { PUBLIC_BASE_URL: BASE, APNS_URL: apns.url, DEVICES_PER_PASS: '3' });
    pushThroughStandIn(app, apns);
  });
  afterAll(async () => {
    await app.close();
    await apns.close();
  });

  it('pushes at most DEVICES_PER_PASS devices on a change, however many registrations raced past the cap', async () => {
    const installed = await installPass(app);
    const tokens = Array.from({ length: 20 }, () => randomBytes(32).toString('hex'));
    const answers = await Promise.all(tokens.map((token) => device(app, installed).register(token)));
    for (const answer of answers) expect(answer.status).toBe(201);
    const pushed = () => apns.pushes.filter((push) => tokens.includes(push.token)).length;
    const before = apns.pushes.length;
    await voidPass(app.services, installed.serialNumber, 'lost');
    await apns.waitForPushes(before + 3);
    // Every push job of the change has run by now: none is left in the queue.
    const deadline = Date.now() + 5_000;
    const pending = async () =>
      (
        await app.services.store.sql.query<{ n: number }>(
          `select count(*)::int as n from jobs where kind = 'apns.push' and done_at is null and failed_at is null and payload->>'serialNumber' = $1`,
          [installed.serialNumber],
        )
      )[0]?.n ?? 0;
    while ((await pending()) > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await pending()).toBe(0);
    expect(pushed()).toBe(3);
  });
});

describe.each(BACKENDS)('pushes beside a webhook backlog on %s', (backend) => {
  let app: TestApp;
  let apns: ApnsStandIn;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    apns = await ApnsStandIn.start();
    receiver = await WebhookReceiver.start();
    receiver.delayMs = 1000;
    app = await TestApp.open(backend, { PUBLIC_BASE_URL: BASE, APNS_URL: apns.url, WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: newWebhookSecret() });
    pushThroughStandIn(app, apns);
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
    await apns.close();
  });

  it('pushes a change within a second while 200+ deliveries wait on a receiver taking 1 s each', async () => {
    const installed = await installPass(app);
    const phone = device(app, installed);
    expect((await phone.register(pushToken())).status).toBe(201);
    await voidPass(app.services, installed.serialNumber, 'lost');
    await apns.waitForPushes(1);
    // Scans of 240 different serials: deliveries queued in front of the next change.
    const scans = Array.from({ length: 240 }, () => ({
      kind: WEBHOOK_JOB,
      payload: {
        id: newWebhookMessageId(),
        type: 'pass.scanned',
        timestamp: new Date().toISOString(),
        data: { serialNumber: randomUUID(), publicKey: installed.wallet.publicKey, walletType: 'Generic' },
      },
    }));
    await app.services.store.jobs.enqueue(scans);
    await new Promise((resolve) => setTimeout(resolve, 200)); // the webhook slots are all taken
    const before = apns.pushes.length;
    const restoredAt = Date.now();
    await restorePass(app.services, installed.serialNumber);
    const pushes = await apns.waitForPushes(before + 1, 5_000);
    expect(pushes.at(-1)!.at.getTime() - restoredAt).toBeLessThan(1000);
  });
});
