// Edge values that once reached the database and came back as 500s: each is a 400
// invalid_request naming its field, and nothing is logged at error level for it (an error line
// would carry the statement's parameters). Through the real frame on a real database.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { device, installPass } from '../living/support';
import { BACKENDS, TestApp, TestWallet } from '../support/app';

const BASE = 'https://passes.example.com';
type Json = Record<string, any>;

describe.each(BACKENDS)('edge values on %s', (backend) => {
  const operator = new TestWallet();
  let app: TestApp;
  let token: string;
  const logged: string[] = [];

  beforeAll(async () => {
    app = await TestApp.open(backend, { PUBLIC_BASE_URL: BASE, OPERATOR_WALLETS: operator.publicKey, APNS_URL: 'https://127.0.0.1:9' });
    // The service's log, read back: the frame logs through services.log at each request.
    app.services.log = pino(
      { level: 'info' },
      new Writable({
        write(chunk, _encoding, done) {
          logged.push(...String(chunk).split('\n').filter(Boolean));
          done();
        },
      }),
    );
    token = await app.operatorToken(operator);
  });
  afterAll(() => app.close());

  const expectInvalid = async (response: Response, field: string) => {
    const body = (await response.json()) as Json;
    expect([response.status, body.code]).toEqual([400, 'invalid_request']);
    expect(body.fields?.map((f: Json) => f.field)).toEqual([field]);
  };
  const errorLines = () => logged.filter((line) => JSON.parse(line).level >= 50);

  it('a passesUpdatedSince past any tag this service hands out', async () => {
    const installed = await installPass(app);
    const wallet = device(app, installed);
    expect((await wallet.register('ab'.repeat(32))).status).toBe(201);
    for (const tag of ['9223372036854775807', '253402300800000000', '9999999999999999999']) {
      await expectInvalid(await wallet.list(tag), 'passesUpdatedSince');
    }

    // The largest tag that can name an instant (the end of year 9999) is still a tag.
    expect((await wallet.list('253402300799999999')).status).toBe(204);
    expect(errorLines()).toEqual([]);
  });

  it('a pass list cursor holding a date that does not exist', async () => {
    const cursor = (claimedAt: string) => Buffer.from(JSON.stringify([claimedAt, '00000000-0000-4000-8000-000000000000'])).toString('base64url');
    for (const claimedAt of [
      '2026-02-30 10:00:00+00',
      '2025-02-29 10:00:00+00',
      '2026-04-31 10:00:00.5+00',
      '2026-13-01 10:00:00+00',
      '2026-01-01 24:00:00+00',
    ]) {
      const response = await app.fetch(`/api/v1/operator/passes?cursor=${cursor(claimedAt)}`, { headers: { authorization: `Bearer ${token}` } });
      await expectInvalid(response, 'cursor');
    }
    const leap = await app.fetch(`/api/v1/operator/passes?cursor=${cursor('2024-02-29 10:00:00.123456+00')}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(leap.status).toBe(200);
    expect(errorLines()).toEqual([]);
  });

  it('a pass date whose instant falls outside the years 2000 to 9999, whatever its text says', async () => {
    const installed = await installPass(app);
    const setDate = (expirationDate: string) =>
      app.fetch(`/api/v1/operator/passes/${installed.serialNumber}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ expirationDate }),
      });
    for (const date of ['9999-12-31T23:59:59-23:59', '9999-12-31T23:00:00-01:00', '2000-01-01T00:00:00+23:59', '2000-01-01T00:30:00+01:00']) {
      await expectInvalid(await setDate(date), 'expirationDate');
    }
    const [row] = await app.services.store.sql.query<{ expires_at: unknown }>(`select expires_at from passes where serial_number = $1`, [
      installed.serialNumber,
    ]);
    expect(row!.expires_at).toBeNull();
    // The first and last instants of the range are dates a pass can carry.
    expect(((await (await setDate('2000-01-01T01:00:00+01:00')).json()) as Json).expirationDate).toBe('2000-01-01T00:00:00.000Z');
    expect(((await (await setDate('9999-12-31T22:59:59-01:00')).json()) as Json).expirationDate).toBe('9999-12-31T23:59:59.000Z');
    expect(errorLines()).toEqual([]);
  });
});
