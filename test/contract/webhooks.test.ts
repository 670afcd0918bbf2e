// Webhooks (CONTRACT.md "Webhooks") against a real local receiver, on PGlite and PostgreSQL:
// each event signed per Standard Webhooks (checked with the library's own Webhook.verify), its
// body {type, timestamp, data} without a download id; a receiver that fails is retried until it
// accepts, and gets the event exactly once; the deliveries are visible to operators and can be
// retried. Restarts and two instances: test/scale/webhooks.test.ts.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually } from '@/scripts/support/server-process';
import { BACKENDS, TestApp, TestWallet } from '../support/app';
import { newWebhookSecret, type ReceivedWebhook, WebhookReceiver } from '../support/stand-ins/webhook-receiver';

type Json = Record<string, any>;

describe.each(BACKENDS)('webhooks on %s', (backend) => {
  const secret = newWebhookSecret();
  const operator = new TestWallet();
  let receiver: WebhookReceiver;
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    app = await TestApp.open(backend, {
      PUBLIC_BASE_URL: 'https://passes.example.com',
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: secret,
      JOB_RETRY_BASE_MS: '100',
      OPERATOR_WALLETS: operator.publicKey,
    });
    token = await app.operatorToken(operator);
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.answer = () => 200;
  });

  const operatorCall = async (method: string, path: string, body?: unknown): Promise<Json> => {
    const response = await app.fetch(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return (await response.json()) as Json;
  };

  /** The verified events of a type for a serial, in arrival order (each accepted one once). */
  const eventsFor = (serial: string, type?: string) =>
    receiver
      .accepted()
      .map((request) => ({ request, event: verified(request) }))
      .filter(({ event }) => event.data.serialNumber === serial && (!type || event.type === type));

  const verified = (request: ReceivedWebhook) => new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as Json;

  /** Resolves once no delivery is pending or being sent: every event the service meant to send has been answered. */
  const allDelivered = () =>
    eventually(
      async () => {
        const { deliveries } = await operatorCall('GET', '/api/v1/operator/webhooks/deliveries?status=pending');
        return (deliveries as Json[]).length === 0 ? true : undefined;
      },
      10_000,
      'no delivery pending',
    );

  const claim = async () => {
    const wallet = new TestWallet();
    const response = await app.claimWith(wallet, { walletType: 'Solflare' });
    const { downloadUrl } = (await response.json()) as { downloadUrl: string };
    const [row] = await app.services.store.sql.query<{ serial_number: string }>(`select serial_number from passes where public_key = $1`, [wallet.publicKey]);
    return { wallet, serial: row!.serial_number, passId: new URL(downloadUrl).searchParams.get('pass')! };
  };

  it('pass.created: signed per Standard Webhooks, {type, timestamp, data}, never a download id', async () => {
    const { wallet, serial, passId } = await claim();
    const { request, event } = await eventually(async () => eventsFor(serial, 'pass.created')[0], 10_000, 'pass.created');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['webhook-id']).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    expect(request.headers['webhook-signature']).toMatch(/^v1,/);
    expect(Object.keys(event).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(event).toEqual({
      type: 'pass.created',
      timestamp: expect.any(String),
      data: { serialNumber: serial, publicKey: wallet.publicKey, program: 'default', walletType: 'Solflare' },
    });
    expect(Math.abs(Date.parse(event.timestamp) - Date.now())).toBeLessThan(30_000);
    expect(request.body).not.toContain(passId);
    // Another secret, or a body changed by one byte, does not verify.
    expect(() => new Webhook(newWebhookSecret()).verify(request.body, request.headers as Record<string, string>)).toThrow();
    expect(() => new Webhook(secret).verify(request.body.replace('Solflare', 'Solflarf'), request.headers as Record<string, string>)).toThrow();

    // A returning wallet's claim creates nothing: no second event.
    expect((await app.claimWith(wallet)).status).toBe(200);
    await allDelivered();
    expect(eventsFor(serial, 'pass.created')).toHaveLength(1);
  });

  it('pass.scanned when the scanner check (JSON or page) answers for a real serial, not for an unknown one; at most one per serial per minute', async () => {
    const { serial } = await claim();
    const other = await claim();
    const unknown = '00000000-0000-4000-8000-000000000000';
    const scannedJobs = (forSerial: string) =>
      app.services.store.sql.query<{ id: string }>(
        `select id from jobs where kind = 'webhook' and payload->>'type' = 'pass.scanned' and payload->'data'->>'serialNumber' = $1`,
        [forSerial],
      );
    try {
      // 300 scans of one serial, 50 at a time: one event for the minute, whoever raced.
      for (let round = 0; round < 6; round++) {
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) => app.fetch(i % 2 ? `/verify?serial=${serial}` : `/api/v1/passes/verify?serial=${serial}`)),
        );
        for (const answer of answers) expect(answer.status).toBe(200);
      }
      expect((await app.fetch(`/api/v1/passes/verify?serial=${other.serial}`)).status).toBe(200);
      expect((await app.fetch(`/api/v1/passes/verify?serial=${unknown}`)).status).toBe(404);
      expect(await scannedJobs(serial)).toHaveLength(1);
      expect(await scannedJobs(other.serial)).toHaveLength(1);
      // A minute later, the next scan is an event again.
      app.clock.advance(61_000);
      expect((await app.fetch(`/verify?serial=${serial}`)).status).toBe(200);
      expect((await app.fetch(`/verify?serial=${serial}`)).status).toBe(200);
      expect(await scannedJobs(serial)).toHaveLength(2);
    } finally {
      app.clock.reset();
    }
    const scanned = await eventually(
      async () => {
        const found = eventsFor(serial, 'pass.scanned');
        return found.length === 2 ? found : undefined;
      },
      10_000,
      'two pass.scanned',
    );
    expect(scanned[0]!.event.data).toEqual({ serialNumber: serial, publicKey: expect.any(String), program: 'default', walletType: 'Solflare' });
    await allDelivered();
    expect(eventsFor(serial, 'pass.scanned')).toHaveLength(2);
    expect(eventsFor(unknown)).toEqual([]);
  });

  it('pass.voided with its reason, and pass.restored, from the operator API', async () => {
    const { wallet, serial } = await claim();
    await operatorCall('POST', `/api/v1/operator/passes/${serial}/void`, { reason: 'ticket refunded' });
    await operatorCall('POST', `/api/v1/operator/passes/${serial}/restore`);
    const events = await eventually(
      async () => {
        const found = eventsFor(serial).filter(({ event }) => event.type !== 'pass.created');
        return found.length === 2 ? found : undefined;
      },
      10_000,
      'voided and restored',
    );
    expect(events.map(({ event }) => event.type).sort()).toEqual(['pass.restored', 'pass.voided']);
    const voided = events.find(({ event }) => event.type === 'pass.voided')!.event;
    expect(voided.data).toEqual({ serialNumber: serial, publicKey: wallet.publicKey, program: 'default', walletType: 'Solflare', reason: 'ticket refunded' });
    expect(events.find(({ event }) => event.type === 'pass.restored')!.event.data).toEqual({
      serialNumber: serial,
      publicKey: wallet.publicKey,
      program: 'default',
      walletType: 'Solflare',
    });
  });

  it('pass.updated with the dates an operator set, and only when they change', async () => {
    const { wallet, serial } = await claim();
    await operatorCall('PATCH', `/api/v1/operator/passes/${serial}`, { expirationDate: '2030-06-01T18:00:00+02:00' });
    await operatorCall('PATCH', `/api/v1/operator/passes/${serial}`, { expirationDate: '2030-06-01T16:00:00Z' }); // the same instant
    await operatorCall('PATCH', `/api/v1/operator/passes/${serial}`, { expirationDate: null, relevantDate: '2030-05-31T20:00:00Z' });
    const updates = await eventually(
      async () => {
        const found = eventsFor(serial, 'pass.updated');
        return found.length === 2 ? found : undefined;
      },
      10_000,
      'two pass.updated',
    );
    const data = updates.map(({ event }) => event.data).sort((a, b) => String(a.expirationDate).localeCompare(String(b.expirationDate)));
    expect(data).toEqual([
      { serialNumber: serial, publicKey: wallet.publicKey, program: 'default', walletType: 'Solflare', expirationDate: '2030-06-01T16:00:00.000Z' },
      { serialNumber: serial, publicKey: wallet.publicKey, program: 'default', walletType: 'Solflare', relevantDate: '2030-05-31T20:00:00.000Z' },
    ]);
    await allDelivered();
    expect(eventsFor(serial, 'pass.updated')).toHaveLength(2);
  });

  it('retries a failing receiver with backoff, shows it to operators, and delivers exactly once when it accepts', async () => {
    receiver.answer = () => 503;
    const { serial } = await claim();
    const failing = await eventually(
      async () => {
        const { deliveries } = await operatorCall('GET', '/api/v1/operator/webhooks/deliveries?status=pending');
        const mine = (deliveries as Json[]).find((d) => d.serialNumber === serial && d.type === 'pass.created');
        return mine && mine.attempts >= 2 && mine.status === 'pending' ? mine : undefined;
      },
      10_000,
      'two failed attempts',
    );
    expect(failing.lastError).toBe('the receiver answered HTTP 503');
    expect(Date.parse(failing.nextAttemptAt)).toBeGreaterThan(Date.parse(failing.createdAt));
    expect(failing.deliveredAt).toBeNull();
    const attempts = receiver.withId(failing.eventId);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    // Backoff: the second attempt waited at least the first delay (100 ms, ±10 %).
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(85);

    receiver.answer = () => 200;
    const delivered = await eventually(
      async () => {
        const { deliveries } = await operatorCall('GET', '/api/v1/operator/webhooks/deliveries?status=delivered');
        return (deliveries as Json[]).find((d) => d.id === failing.id);
      },
      10_000,
      'delivered',
    );
    expect(delivered).toMatchObject({ status: 'delivered', lastError: null, nextAttemptAt: null, deliveredAt: expect.any(String) });
    await allDelivered();
    expect(receiver.withId(failing.eventId).filter((request) => request.status === 200)).toHaveLength(1);
    expect(eventsFor(serial, 'pass.created')).toHaveLength(1);
  });

  it('gives up after 24 hours of failures; an operator’s retry sends it again', async () => {
    receiver.answer = () => 500;
    const { serial } = await claim();
    const pending = await eventually(
      async () => {
        const { deliveries } = await operatorCall('GET', '/api/v1/operator/webhooks/deliveries');
        return (deliveries as Json[]).find((d) => d.serialNumber === serial && d.attempts >= 1);
      },
      10_000,
      'first attempt',
    );
    // As if it had been failing since yesterday.
    await app.services.store.sql.query(`update jobs set created_at = now() - interval '25 hours' where id = $1`, [Number(pending.id)]);
    const failed = await eventually(
      async () => {
        const { deliveries } = await operatorCall('GET', '/api/v1/operator/webhooks/deliveries?status=failed');
        return (deliveries as Json[]).find((d) => d.id === pending.id);
      },
      10_000,
      'given up',
    );
    expect(failed).toMatchObject({ status: 'failed', nextAttemptAt: null, lastError: 'the receiver answered HTTP 500', failedAt: expect.any(String) });

    receiver.answer = () => 200;
    const retried = await operatorCall('POST', `/api/v1/operator/webhooks/deliveries/${pending.id}/retry`);
    expect(retried).toMatchObject({ id: pending.id, failedAt: null });
    await eventually(async () => (eventsFor(serial, 'pass.created').length === 1 ? true : undefined), 10_000, 'delivered after the retry');
  });

  it('pages deliveries newest first with an opaque cursor', async () => {
    const all = (await operatorCall('GET', '/api/v1/operator/webhooks/deliveries?limit=200')).deliveries as Json[];
    expect(all.length).toBeGreaterThan(3);
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await operatorCall('GET', `/api/v1/operator/webhooks/deliveries?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      ids.push(...page.deliveries.map((d: Json) => d.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(ids).toEqual(all.map((d) => d.id));
    expect(ids.map(Number)).toEqual([...ids.map(Number)].sort((a, b) => b - a));
    expect((await operatorCall('GET', '/api/v1/operator/webhooks/deliveries?cursor=bm9wZQ')).code).toBe('invalid_request');
  });
});
