// Installs and uninstalls on the stats: every device registration made and ended is counted on
// its UTC day and program, as it happens (the registration's row is gone once it ends): a
// device's own DELETE, a push APNs answers 410 (the token is gone), and a newer device taking an
// older one's place past DEVICES_PER_PASS. The service's clock moves a day on between the two.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApnsClient } from '@/lib/passes/apns';
import { eventually } from '@/scripts/support/server-process';
import { BACKENDS, TestApp, TestWallet } from '../support/app';
import { ApnsStandIn } from '../support/stand-ins/apns';
import { createCertificateAuthority, issuePassTypeCertificate } from '../support/stand-ins/certificates';
import { device, installPass, newPushToken, operatorAction } from './support';

const DAY_MS = 24 * 3600 * 1000;
type PerDay = { date: string; count: number }[];
type Stats = { devicesRegistered: number; installsPerDay: PerDay; uninstallsPerDay: PerDay; claimsPerDay: PerDay };

describe.each(BACKENDS)('installs and uninstalls per day on %s', (backend) => {
  let app: TestApp;
  let apns: ApnsStandIn;
  let token: string;
  const operator = new TestWallet();

  beforeAll(async () => {
    apns = await ApnsStandIn.start();
    app = await TestApp.open(backend, {
      PUBLIC_BASE_URL: 'https://passes.example.com',
      OPERATOR_WALLETS: operator.publicKey,
      PASSKIT_TOKEN_KEY: randomBytes(32).toString('base64'),
      APNS_URL: apns.url,
      DEVICES_PER_PASS: '2',
    });
    const topic = app.services.living.passTypeIdentifier;
    const client = issuePassTypeCertificate(createCertificateAuthority('Test WWDR CA'), topic);
    app.services.living.apns = new ApnsClient({ url: apns.url, certPem: client.certPem, keyPem: client.keyPem, topic, ca: apns.caPem });
    token = await app.operatorToken(operator);
    await app.createProgram(token, { slug: 'holders-club', name: 'Holders Club', status: 'live', design: { style: 'storeCard' } });
  });
  afterAll(async () => {
    await app?.close();
    await apns?.close();
  });

  const stats = async (program?: string): Promise<Stats> => {
    const response = await app.fetch(`/api/v1/operator/stats${program ? `?program=${program}` : ''}`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as Stats;
  };
  const registered = async (serialNumber: string) => {
    const [row] = await app.services.store.sql.query<{ n: number }>('select count(*)::int as n from device_registrations where serial_number = $1', [
      serialNumber,
    ]);
    return row!.n;
  };

  it('counts registrations made and ended on their day: the device’s own, a gone push token and the device cap', async () => {
    const installed = await installPass(app);
    const [a, b, c, d] = [device(app, installed), device(app, installed), device(app, installed), device(app, installed)];
    const tokens = [newPushToken(), newPushToken(), newPushToken(), newPushToken()];

    // Day 1: A and B install; a change pushes them, and APNs calls A's token gone (410).
    expect((await a.register(tokens[0]!)).status).toBe(201);
    expect((await b.register(tokens[1]!)).status).toBe(201);
    apns.answer(tokens[0]!, { status: 410, reason: 'Unregistered' });
    expect((await operatorAction(app, token, installed.serialNumber, 'void', 'lost')).status).toBe(200);
    await eventually(async () => ((await registered(installed.serialNumber)) === 1 ? true : undefined), 15_000, 'the gone registration removed');
    expect((await operatorAction(app, token, installed.serialNumber, 'restore')).status).toBe(200);
    const day1 = new Date(app.clock.now()).toISOString().slice(0, 10);

    // Day 2: C and D install (D takes B's place past DEVICES_PER_PASS = 2), and C unregisters.
    app.clock.advance(DAY_MS);
    const day2 = new Date(app.clock.now()).toISOString().slice(0, 10);
    expect((await c.register(tokens[2]!)).status).toBe(201);
    expect((await d.register(tokens[3]!)).status).toBe(201);
    expect((await c.unregister()).status).toBe(200);
    // Registering again with a new token is no new install.
    expect((await d.register(newPushToken())).status).toBe(200);

    const all = await stats();
    expect(all.devicesRegistered).toBe(1);
    expect(all.installsPerDay).toHaveLength(30);
    expect(all.installsPerDay.slice(-2)).toEqual([
      { date: day1, count: 2 },
      { date: day2, count: 2 },
    ]);
    expect(all.uninstallsPerDay.slice(-2)).toEqual([
      { date: day1, count: 1 },
      { date: day2, count: 2 },
    ]);
    expect(all.installsPerDay.slice(0, -2).every((day) => day.count === 0)).toBe(true);
    // Of one program: the pass's (default) has them all; another has none.
    expect((await stats('default')).uninstallsPerDay.slice(-2).map((day) => day.count)).toEqual([1, 2]);
    const club = await stats('holders-club');
    expect([...club.installsPerDay, ...club.uninstallsPerDay].every((day) => day.count === 0)).toBe(true);
  });
});
