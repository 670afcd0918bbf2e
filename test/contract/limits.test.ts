// The limits on issuing messages and on the costly endpoints (docs/limits.md), through the real
// frame on a real database: the per-key cap on pending messages (also when several inits share
// one batched statement), the per-instance init budget, IPv6 /64 keys, the Google link's limit,
// and download ids derived under a kept key rather than stored.
import { createHash, createHmac } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { BACKENDS, TestApp, TestWallet } from '../support/app';
import { TEST_ISSUER_ID, testServiceAccount } from '../support/google';

const BASE = 'https://passes.example.com';

// Reopening the services costs seconds on a busy machine.
vi.setConfig({ testTimeout: 180_000 });

describe.each(BACKENDS)('limits on %s', (backend) => {
  // One database for the file, each test with its own wallets and settings: open() reopens the
  // services with the test's settings, so limits counted in memory start afresh.
  let shared: TestApp;
  let app: TestApp | undefined;
  beforeAll(async () => {
    shared = await TestApp.open(backend);
  });
  afterAll(() => shared.close());
  afterEach(() => {
    app = undefined;
  });
  const open = async (env: Record<string, string> = {}) => {
    await shared.reopen(env);
    return shared;
  };

  const initOf = (publicKey: string, ip = '203.0.113.7') => app!.fetch(`/api/v1/claim/init?publicKey=${publicKey}`, { ip });
  const pendingRows = async (publicKey: string) =>
    (await app!.services.store.sql.query<{ n: number }>('select count(*)::int as n from sign_in_messages where public_key = $1', [publicKey]))[0]!.n;

  describe('pending messages per public key', () => {
    it('stores at most PENDING_MESSAGES_PER_KEY, then answers 429 with Retry-After and stores nothing', async () => {
      app = await open({ PENDING_MESSAGES_PER_KEY: '3', NONCE_TTL_SECONDS: '600' });
      const wallet = new TestWallet();
      for (let i = 0; i < 3; i++) expect((await initOf(wallet.publicKey)).status).toBe(200);
      const refused = await initOf(wallet.publicKey);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect((await refused.json()).code).toBe('rate_limited');
      // The oldest pending message expires in about NONCE_TTL_SECONDS.
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(590);
      expect(retryAfter).toBeLessThanOrEqual(600);
      expect(await pendingRows(wallet.publicKey)).toBe(3);
      // Other keys are not affected, from the same client.
      expect((await initOf(new TestWallet().publicKey)).status).toBe(200);
    });

    it('holds under concurrent inits of several keys batched into shared statements', async () => {
      app = await open({ PENDING_MESSAGES_PER_KEY: '3' });
      const wallets = Array.from({ length: 5 }, () => new TestWallet());
      const responses = await Promise.all(wallets.flatMap((wallet) => Array.from({ length: 10 }, () => initOf(wallet.publicKey))));
      const statuses = responses.map((r) => r.status);
      for (let w = 0; w < wallets.length; w++) {
        const own = statuses.slice(w * 10, w * 10 + 10);
        expect(own.filter((s) => s === 200)).toHaveLength(3);
        expect(own.filter((s) => s === 429)).toHaveLength(7);
        expect(await pendingRows(wallets[w]!.publicKey)).toBe(3);
      }
    });

    it('frees a slot when a message is used, and when one expires', async () => {
      app = await open({ PENDING_MESSAGES_PER_KEY: '2', NONCE_TTL_SECONDS: '2' });
      const wallet = new TestWallet();
      const { message } = await app.init(wallet.publicKey);
      await app.init(wallet.publicKey);
      expect((await initOf(wallet.publicKey)).status).toBe(429);
      const claim = await app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey });
      expect(claim.status).toBe(201);
      expect((await initOf(wallet.publicKey)).status).toBe(200);
      expect((await initOf(wallet.publicKey)).status).toBe(429);
      app.clock.advance(2200);
      expect((await initOf(wallet.publicKey)).status).toBe(200);
      expect((await initOf(wallet.publicKey)).status).toBe(200);
    });

    it('stays on with RATE_LIMIT_PER_MINUTE=0', async () => {
      app = await open({ RATE_LIMIT_PER_MINUTE: '0' });
      const wallet = new TestWallet();
      const statuses = [];
      for (let i = 0; i < 7; i++) statuses.push((await initOf(wallet.publicKey)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]); // the default, 5
    });
  });

  it('bounds inits from all clients together at INIT_BUDGET_PER_SECOND, storing nothing past it', async () => {
    app = await open({ RATE_LIMIT_PER_MINUTE: '1000', INIT_BUDGET_PER_SECOND: '5' });
    const wallets = Array.from({ length: 9 }, () => new TestWallet());
    // Nine clients, nine keys: no per-IP or per-key limit is near.
    const responses = await Promise.all(wallets.map((wallet, i) => initOf(wallet.publicKey, `198.51.100.${i + 1}`)));
    const refused = responses.filter((r) => r.status === 429);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(5);
    expect(refused).toHaveLength(4);
    for (const response of refused) {
      expect(response.headers.get('retry-after')).toBe('1');
      expect((await response.json()).code).toBe('rate_limited');
    }
    let stored = 0;
    for (const wallet of wallets) stored += await pendingRows(wallet.publicKey);
    expect(stored).toBe(5);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await initOf(new TestWallet().publicKey, '198.51.100.99')).status).toBe(200);
  });

  describe('operator sign-in messages', () => {
    const operatorInitOf = (publicKey: string, ip = '203.0.113.7') => app!.fetch(`/api/v1/operator/sessions/init?publicKey=${publicKey}`, { ip });

    it('count against PENDING_MESSAGES_PER_KEY with the claim messages of the same key, and a session frees its slot', async () => {
      const operator = new TestWallet();
      app = await open({ PENDING_MESSAGES_PER_KEY: '3', NONCE_TTL_SECONDS: '600', OPERATOR_WALLETS: operator.publicKey });
      const first = await operatorInitOf(operator.publicKey);
      expect(first.status).toBe(200);
      expect((await operatorInitOf(operator.publicKey)).status).toBe(200);
      expect((await initOf(operator.publicKey)).status).toBe(200);
      const refused = await operatorInitOf(operator.publicKey);
      expect(refused.status).toBe(429);
      expect((await refused.json()).code).toBe('rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(590);
      expect((await initOf(operator.publicKey)).status).toBe(429);
      expect(await pendingRows(operator.publicKey)).toBe(3);

      const { message } = (await first.json()) as { message: string };
      const session = await app.fetch('/api/v1/operator/sessions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message, signature: operator.sign(message), publicKey: operator.publicKey }),
      });
      expect(session.status).toBe(201);
      expect((await operatorInitOf(operator.publicKey)).status).toBe(200);
      expect((await operatorInitOf(operator.publicKey)).status).toBe(429);
    });

    it('count against INIT_BUDGET_PER_SECOND with the claim inits', async () => {
      app = await open({ RATE_LIMIT_PER_MINUTE: '1000', INIT_BUDGET_PER_SECOND: '3' });
      const wallets = Array.from({ length: 5 }, () => new TestWallet());
      const responses = await Promise.all(wallets.map((wallet, i) => (i % 2 ? initOf : operatorInitOf)(wallet.publicKey, `198.51.100.${i + 1}`)));
      expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 429, 429]);
      let stored = 0;
      for (const wallet of wallets) stored += await pendingRows(wallet.publicKey);
      expect(stored).toBe(3);
    });
  });

  it('counts the addresses of one IPv6 /64 as one client', async () => {
    app = await open({ RATE_LIMIT_PER_MINUTE: '2' });
    expect((await initOf(new TestWallet().publicKey, '2001:db8:7:1::1')).status).toBe(200);
    expect((await initOf(new TestWallet().publicKey, '2001:db8:7:1:8000::2')).status).toBe(200);
    expect((await initOf(new TestWallet().publicKey, '2001:db8:7:1:ffff:ffff:ffff:ffff')).status).toBe(429);
    expect((await initOf(new TestWallet().publicKey, '2001:db8:7:2::1')).status).toBe(200);
  });

  it('rate limits the Google Wallet link (each costs an RS256 signature)', async () => {
    const account = testServiceAccount();
    app = await open({
      PUBLIC_BASE_URL: BASE,
      RATE_LIMIT_PER_MINUTE: '4',
      GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID,
      GOOGLE_SERVICE_ACCOUNT: account.json,
    });
    const wallet = new TestWallet();
    const { message } = await app.init(wallet.publicKey, '198.51.100.50');
    const claim = await app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey }, { ip: '198.51.100.50' });
    const pass = new URL((await claim.json()).downloadUrl).searchParams.get('pass')!;
    const link = (ip: string) => app!.fetch(`/api/v1/passes/google?pass=${pass}`, { ip });
    expect((await link('198.51.100.50')).status).toBe(200);
    expect((await link('198.51.100.50')).status).toBe(200);
    const refused = await link('198.51.100.50');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await link('198.51.100.51')).status).toBe(200);
  });

  describe('download ids', () => {
    const claimPass = async (wallet = new TestWallet()) => {
      const response = await app!.claimWith(wallet);
      expect([200, 201]).toContain(response.status);
      const downloadUrl = (await response.json()).downloadUrl as string;
      return { wallet, downloadUrl, passId: new URL(downloadUrl).searchParams.get('pass')! };
    };
    const serialOf = async (publicKey: string) =>
      (await app!.services.store.sql.query<{ serial_number: string }>('select serial_number from passes where public_key = $1', [publicKey]))[0]!.serial_number;

    it('are HMAC-SHA256 of the serial under a key kept in DATA_DIR (0600), stored only as a hash; a returning wallet gets the same URL, after a restart too', async () => {
      app = await open({ PUBLIC_BASE_URL: BASE });
      const { wallet, downloadUrl, passId } = await claimPass();
      const keyFile = path.join(app.env.DATA_DIR!, 'download-id.key');
      expect((statSync(keyFile).mode & 0o777).toString(8)).toBe('600');
      const key = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'utf8');
      const serial = await serialOf(wallet.publicKey);
      expect(passId).toBe(createHmac('sha256', key).update(serial).digest('base64url'));

      // No column holds the id: the passes table has only its SHA-256.
      const columns = await app.services.store.sql.query<{ column_name: string }>(
        `select column_name from information_schema.columns where table_name = 'passes'`,
      );
      expect(columns.map((c) => c.column_name)).not.toContain('download_id');
      const [row] = await app.services.store.sql.query<Record<string, unknown>>('select * from passes where serial_number = $1', [serial]);
      expect(JSON.stringify(row)).not.toContain(passId);
      expect(row!.download_id_hash).toBe(createHash('sha256').update(passId).digest('hex'));

      expect((await claimPass(wallet)).downloadUrl).toBe(downloadUrl);
      await app.restart();
      expect((await claimPass(wallet)).downloadUrl).toBe(downloadUrl);
      expect((await app.fetch(new URL(downloadUrl).pathname + new URL(downloadUrl).search)).status).toBe(200);
    });

    it('are derived under DOWNLOAD_ID_KEY when it is set, so instances sharing it give the same URL', async () => {
      const sharedKey = `${'k'.repeat(12)}a-shared-download-id-key-for-tests`;
      app = await open({ PUBLIC_BASE_URL: BASE, DOWNLOAD_ID_KEY: sharedKey });
      const { wallet, passId } = await claimPass();
      const serial = await serialOf(wallet.publicKey);
      expect(passId).toBe(createHmac('sha256', Buffer.from(sharedKey)).update(serial).digest('base64url'));
    });

    it('give a pass claimed under another key a working link when its wallet returns', async () => {
      app = await open({ PUBLIC_BASE_URL: BASE, DOWNLOAD_ID_KEY: 'first-key-'.repeat(4) });
      const { wallet, downloadUrl } = await claimPass();
      await app.restart({ DOWNLOAD_ID_KEY: 'second-key'.repeat(4) });
      const again = await claimPass(wallet);
      expect(again.downloadUrl).not.toBe(downloadUrl);
      expect((await app.fetch(new URL(again.downloadUrl).pathname + new URL(again.downloadUrl).search)).status).toBe(200);
      expect((await claimPass(wallet)).downloadUrl).toBe(again.downloadUrl);
    });
  });
});
