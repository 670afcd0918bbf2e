// A message to a pass's Google object: notifying (TEXT_AND_NOTIFY) for the pass's first 3 in 24
// hours, plain text (TEXT) for the 4th, so that the Google stand-in (which refuses a 4th
// notification in 24 hours, as Google does) never refuses one; notifying again once the service's
// clock has moved past the 24 hours. A job retried after a failure does not take a 2nd
// notification, and a refusal Google makes anyway still gets the text to the pass.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPassOfWallet } from '@/lib/db/passes';
import { sendGoogleMessage } from '@/lib/passes/google-messages';
import { asSerialNumber, type SerialNumber } from '@/lib/passes/ids';
import { eventually } from '@/scripts/support/server-process';
import { BACKENDS, TestApp, TestWallet } from '../support/app';
import { TEST_ISSUER_ID } from '../support/google';
import { GoogleWalletApiStandIn } from '../support/stand-ins/google-wallet-api';

describe.each(BACKENDS)('messages to Google objects on %s', (backend) => {
  let app: TestApp;
  let google: GoogleWalletApiStandIn;
  let counter = 0;
  const operator = new TestWallet();
  const message = (text: string) => ({ id: `msg-${++counter}`, header: 'Winter Gala', body: text });
  const send = (serialNumber: SerialNumber, m: { id: string; header: string; body: string }) => sendGoogleMessage(app.services, serialNumber, m);

  /** A claimed pass whose Save to Google Wallet link was handed out (so its object exists). */
  async function passWithObject(): Promise<{ serialNumber: SerialNumber; objectId: string }> {
    const wallet = new TestWallet();
    const claim = await app.claimWith(wallet);
    const { downloadUrl } = (await claim.json()) as { downloadUrl: string };
    const { serialNumber } = (await findPassOfWallet(app.services.store.sql, 'default', wallet.publicKey))!;
    const passId = new URL(downloadUrl).searchParams.get('pass')!;
    expect((await app.fetch(`/api/v1/passes/google?pass=${passId}`)).status).toBe(200);
    const objectId = `${TEST_ISSUER_ID}.${serialNumber}`;
    expect(google.object(objectId)).toBeDefined();
    return { serialNumber: asSerialNumber(serialNumber), objectId };
  }

  beforeAll(async () => {
    google = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID, now: () => app.clock.now() });
    app = await TestApp.open(backend, {
      PUBLIC_BASE_URL: 'https://passes.example.com',
      GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID,
      GOOGLE_SERVICE_ACCOUNT: google.serviceAccount.json,
      GOOGLE_WALLET_API_URL: google.baseUrl,
      OPERATOR_WALLETS: operator.publicKey,
    });
  });
  afterAll(async () => {
    await app?.close();
    await google?.close();
  });

  it('notifies 3 times in 24 hours, sends the 4th as text, and notifies again after 24 hours', async () => {
    const { serialNumber, objectId } = await passWithObject();
    const sent = [];
    for (const text of ['Doors open at 7', 'New perk this week', 'Bring a friend', 'The date changed'])
      sent.push((await send(serialNumber, message(text))).sent);
    expect(sent).toEqual(['TEXT_AND_NOTIFY', 'TEXT_AND_NOTIFY', 'TEXT_AND_NOTIFY', 'TEXT']);
    expect(google.messages(objectId).map((m) => [m.body, m.messageType])).toEqual([
      ['Doors open at 7', 'TEXT_AND_NOTIFY'],
      ['New perk this week', 'TEXT_AND_NOTIFY'],
      ['Bring a friend', 'TEXT_AND_NOTIFY'],
      ['The date changed', 'TEXT'],
    ]);
    // Google never refused one for its quota.
    expect(google.requests.filter((r) => r.status === 429)).toEqual([]);

    app.clock.advance(24 * 3600 * 1000 + 1000);
    expect((await send(serialNumber, message('A day later'))).sent).toBe('TEXT_AND_NOTIFY');
    expect(google.messages(objectId).at(-1)).toMatchObject({ body: 'A day later', messageType: 'TEXT_AND_NOTIFY', header: 'Winter Gala' });
  });

  it('counts a retried message once: its job failing and running again takes one notification', async () => {
    const { serialNumber, objectId } = await passWithObject();
    const first = message('Doors open at 7');
    google.failNext(1, 503);
    await expect(send(serialNumber, first)).rejects.toMatchObject({ name: 'GoogleApiError', status: 503 });
    expect((await send(serialNumber, first)).sent).toBe('TEXT_AND_NOTIFY');
    expect((await send(serialNumber, message('Second'))).sent).toBe('TEXT_AND_NOTIFY');
    expect((await send(serialNumber, message('Third'))).sent).toBe('TEXT_AND_NOTIFY');
    expect((await send(serialNumber, message('Fourth'))).sent).toBe('TEXT');
    expect(google.messages(objectId).map((m) => m.messageType)).toEqual(['TEXT_AND_NOTIFY', 'TEXT_AND_NOTIFY', 'TEXT_AND_NOTIFY', 'TEXT']);
  });

  it('gives out 3 notifications of one pass, never more, to messages sent at once (two instances on PostgreSQL)', async () => {
    const { serialNumber, objectId } = await passWithObject();
    const twin = backend === 'postgres' ? await app.twin() : app;
    try {
      const sent = await Promise.all(
        Array.from({ length: 8 }, (_, i) => sendGoogleMessage(i % 2 ? twin.services : app.services, serialNumber, message(`at once ${i}`))),
      );
      expect(sent.filter((s) => s.sent === 'TEXT_AND_NOTIFY')).toHaveLength(3);
      expect(sent.filter((s) => s.sent === 'TEXT')).toHaveLength(5);
      expect(google.messages(objectId)).toHaveLength(8);
      expect(google.requests.filter((r) => r.path.endsWith('/addMessage') && r.status === 429)).toEqual([]);
    } finally {
      if (twin !== app) await twin.close();
    }
  });

  it('still gets the text to the pass when Google refuses a notification the count allowed', async () => {
    const { serialNumber, objectId } = await passWithObject();
    // Notifications the service did not count (another sender of the issuer's): Google's count is full.
    for (let i = 0; i < 3; i++) await app.services.living.googleApi!.addMessage({ serialNumber }, { ...message('elsewhere'), messageType: 'TEXT_AND_NOTIFY' });
    expect((await send(serialNumber, message('Doors open at 7'))).sent).toBe('TEXT');
    expect(google.requests.filter((r) => r.status === 429).map((r) => (r.body as { message: { messageType: string } }).message.messageType)).toEqual([
      'TEXT_AND_NOTIFY',
    ]);
    expect(google.messages(objectId).at(-1)).toMatchObject({ body: 'Doors open at 7', messageType: 'TEXT' });
  });

  it('a message to a program reaches each of its Google objects through addMessage, headed by the program’s name', async () => {
    const { objectId } = await passWithObject();
    const token = await app.operatorToken(operator);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const program = (await (await app.fetch('/api/v1/operator/programs/default', { headers })).json()) as { name: string };
    const sent = await app.fetch('/api/v1/operator/programs/default/messages', { method: 'POST', headers, body: JSON.stringify({ text: 'Doors open at 7' }) });
    expect(sent.status).toBe(202);
    const { id } = (await sent.json()) as { id: string };
    const delivered = await eventually(
      async () => google.messages(objectId).find((m) => m.body === 'Doors open at 7'),
      10_000,
      'the message on the Google object',
    );
    expect(delivered).toMatchObject({ id, header: program.name, messageType: 'TEXT_AND_NOTIFY' });
  });

  it('sends nothing to a pass with no Google object', async () => {
    const wallet = new TestWallet();
    expect((await app.claimWith(wallet)).status).toBe(201);
    const { serialNumber } = (await findPassOfWallet(app.services.store.sql, 'default', wallet.publicKey))!;
    // Only this pass's requests: the program message of the test above may still be reaching the
    // other passes' objects in the background.
    const aboutThisPass = () => google.requests.filter((request) => request.path.includes(serialNumber)).length;
    const before = aboutThisPass();
    expect((await send(asSerialNumber(serialNumber), message('Doors open at 7'))).sent).toBe('no_object');
    expect(aboutThisPass()).toBe(before);
  });
});
