// The contract (../shared/CONTRACT.md), row by row, through the real route handlers on a real
// database: PGlite, and PostgreSQL when TEST_DATABASE_URL is set.
import { createSignInMessageText } from '@solana/wallet-standard-util';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALLET_TYPES } from '@/lib/wallet-types';
import { BACKENDS, TestApp, TestWallet } from '../support/app';
import { inspectPkpass } from '../support/pkpass';

const BASE = 'https://passes.example.com';

describe.each(BACKENDS)('claim service on %s', (backend) => {
  let app: TestApp;
  beforeAll(async () => {
    // 16: one test claims with 16 messages of one wallet at once (the default cap is 5).
    app = await TestApp.open(backend, { PUBLIC_BASE_URL: BASE, SOLANA_CHAIN_ID: 'devnet', PENDING_MESSAGES_PER_KEY: '16' });
  });
  afterAll(() => app.close());

  const problemOf = async (response: Response) => {
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const body = await response.json();
    expect(body).toMatchObject({ type: expect.any(String), title: expect.any(String), status: response.status, detail: expect.any(String) });
    expect(JSON.stringify(body)).not.toMatch(/at .*\.(ts|js):\d+/); // no stack traces
    return body;
  };

  describe('GET /health', () => {
    it('answers 200 {"status":"healthy"} with exactly one field, not cached', async () => {
      const response = await app.fetch('/health');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ status: 'healthy' });
      expect(response.headers.get('cache-control')).toBe('no-store');
    });
  });

  describe('GET /api/v1/claim/init', () => {
    it('issues Sign In With Solana text laid out by createSignInMessageText, with its fields', async () => {
      const wallet = new TestWallet();
      const response = await app.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = await response.json();
      expect(body).toMatchObject({
        domain: 'passes.example.com',
        address: wallet.publicKey,
        uri: BASE,
        version: '1',
        chainId: 'devnet',
        statement: expect.any(String),
      });
      expect(body.nonce).toMatch(/^[A-Za-z0-9]{16,}$/);
      expect(Date.parse(body.expirationTime) - Date.parse(body.issuedAt)).toBe(600_000);
      const { message, ...fields } = body;
      expect(message).toBe(createSignInMessageText(fields));
      expect(message).toContain(`Nonce: ${body.nonce}\nIssued At: ${body.issuedAt}\nExpiration Time: ${body.expirationTime}`);
    });

    it('takes the domain from PUBLIC_BASE_URL, never from Host or X-Forwarded-Host', async () => {
      const wallet = new TestWallet();
      const response = await app.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, {
        headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' },
      });
      const body = await response.json();
      expect(body.domain).toBe('passes.example.com');
      expect(body.uri).toBe(BASE);
      expect(body.message).not.toContain('evil');
    });

    it('never repeats a nonce', async () => {
      // 50 wallets: one wallet holds at most PENDING_MESSAGES_PER_KEY pending messages.
      const nonces = new Set<string>();
      for (let i = 0; i < 50; i++) nonces.add((await app.init(new TestWallet().publicKey)).nonce);
      expect(nonces.size).toBe(50);
    });

    it.each([
      ['missing', ''],
      ['not base58', '?publicKey=0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl'],
      ['31 bytes', `?publicKey=${bs58.encode(new Uint8Array(31).fill(7))}`],
      ['33 bytes', `?publicKey=${bs58.encode(new Uint8Array(33).fill(7))}`],
    ])('answers 400 invalid_request for a publicKey %s', async (_, query) => {
      const response = await app.fetch(`/api/v1/claim/init${query}`);
      expect(response.status).toBe(400);
      const problem = await problemOf(response);
      expect(problem.code).toBe('invalid_request');
      expect(problem.fields).toEqual([{ field: 'publicKey', message: expect.any(String) }]);
    });
  });

  describe('POST /api/v1/claim/wallet-pass', () => {
    it('creates a pass (201), then gives a returning wallet the same URL (200)', async () => {
      const wallet = new TestWallet();
      const first = await app.claimWith(wallet, { walletType: 'Phantom' });
      expect(first.status).toBe(201);
      const body = await first.json();
      expect(Object.keys(body)).toEqual(['downloadUrl']);
      expect(body.downloadUrl).toMatch(new RegExp(`^${BASE}/download\\?pass=[A-Za-z0-9_-]{22,}$`));

      const again = await app.claimWith(wallet);
      expect(again.status).toBe(200);
      expect(await again.json()).toEqual(body);
    });

    it('accepts every one of the 13 wallet types and defaults to Generic', async () => {
      expect(WALLET_TYPES).toHaveLength(13);
      for (const walletType of WALLET_TYPES) {
        expect((await app.claimWith(new TestWallet(), { walletType })).status).toBe(201);
      }
      expect((await app.claimWith(new TestWallet())).status).toBe(201);
    });

    it('uses a message up: a second submission is 409 message_already_used', async () => {
      const wallet = new TestWallet();
      const { message } = await app.init(wallet.publicKey);
      const body = { message, signature: wallet.sign(message), publicKey: wallet.publicKey };
      expect((await app.postClaim(body)).status).toBe(201);
      const replay = await app.postClaim(body);
      expect(replay.status).toBe(409);
      expect((await problemOf(replay)).code).toBe('message_already_used');
    });

    it('keeps every pending message of a wallet valid: a new init cancels none', async () => {
      const wallet = new TestWallet();
      const first = await app.init(wallet.publicKey);
      const second = await app.init(wallet.publicKey);
      const claim = (m: string) => app.postClaim({ message: m, signature: wallet.sign(m), publicKey: wallet.publicKey });
      expect((await claim(first.message)).status).toBe(201);
      expect((await claim(second.message)).status).toBe(200);
    });

    it('rejects an unknown walletType with 400 without using the message up', async () => {
      const wallet = new TestWallet();
      const { message } = await app.init(wallet.publicKey);
      const body = { message, signature: wallet.sign(message), publicKey: wallet.publicKey };
      for (const walletType of ['Backpack', 'phantom', '', 42, null]) {
        const response = await app.postClaim({ ...body, walletType });
        expect(response.status).toBe(400);
        const problem = await problemOf(response);
        expect(problem.code).toBe('invalid_request');
        expect(problem.fields).toEqual([{ field: 'walletType', message: expect.stringContaining('Coinbase Wallet') }]);
      }
      expect((await app.postClaim({ ...body, walletType: 'Solflare' })).status).toBe(201);
    });

    it('accepts a text a wallet signIn built from the issued fields', async () => {
      const wallet = new TestWallet();
      const { message: _issued, ...fields } = await app.init(wallet.publicKey);
      // A wallet renders the same fields itself; a trailing newline is all that may differ.
      const rebuilt = `${createSignInMessageText(fields)}\n`;
      const response = await app.postClaim({ message: rebuilt, signature: wallet.sign(rebuilt), publicKey: wallet.publicKey });
      expect(response.status).toBe(201);
    });

    it.each([
      ['another domain', (f: Record<string, string>) => ({ ...f, domain: 'evil.example' })],
      ['another statement', (f: Record<string, string>) => ({ ...f, statement: 'Send me your tokens' })],
      ['a later expiration', (f: Record<string, string>) => ({ ...f, expirationTime: '2099-01-01T00:00:00.000Z' })],
      ['another chain', (f: Record<string, string>) => ({ ...f, chainId: 'mainnet' })],
      ['an extra Not Before', (f: Record<string, string>) => ({ ...f, notBefore: f.issuedAt })],
      ['extra resources', (f: Record<string, string>) => ({ ...f, resources: ['https://evil.example'] })],
      ['a missing statement', (f: Record<string, string>) => ({ ...f, statement: '' })],
    ])('rejects a message with %s as 401 message_not_issued', async (_, alter) => {
      const wallet = new TestWallet();
      const { message: _issued, ...fields } = await app.init(wallet.publicKey);
      const altered = createSignInMessageText(alter(fields as unknown as Record<string, string>) as never);
      const response = await app.postClaim({ message: altered, signature: wallet.sign(altered), publicKey: wallet.publicKey });
      expect(response.status).toBe(401);
      expect((await problemOf(response)).code).toBe('message_not_issued');
    });

    it('rejects a message issued for another key, and text that is not a sign-in message', async () => {
      const owner = new TestWallet();
      const thief = new TestWallet();
      const { message } = await app.init(owner.publicKey);
      for (const body of [
        { message, signature: thief.sign(message), publicKey: thief.publicKey },
        { message: 'hello', signature: thief.sign('hello'), publicKey: thief.publicKey },
      ]) {
        const response = await app.postClaim(body);
        expect(response.status).toBe(401);
        expect((await problemOf(response)).code).toBe('message_not_issued');
      }
    });

    it('rejects a signature by another key, or over other bytes, as 401 signature_invalid', async () => {
      const wallet = new TestWallet();
      const other = new TestWallet();
      const { message } = await app.init(wallet.publicKey);
      for (const signature of [other.sign(message), wallet.sign(`${message}.`), bs58.encode(new Uint8Array(64).fill(1))]) {
        const response = await app.postClaim({ message, signature, publicKey: wallet.publicKey });
        expect(response.status).toBe(401);
        expect((await problemOf(response)).code).toBe('signature_invalid');
      }
      // None of those used the message up.
      expect((await app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey })).status).toBe(201);
    });

    it.each(['offchain-legacy', 'offchain-v0', 'offchain-v1'] as const)('accepts a signature over the %s off-chain message envelope', async (layout) => {
      expect((await app.claimWith(new TestWallet(), { layout })).status).toBe(201);
    });

    it('downloads a signed .pkpass that verifies with openssl, with an ETag that gives 304', async () => {
      const wallet = new TestWallet();
      const { downloadUrl } = await (await app.claimWith(wallet, { walletType: 'Solflare' })).json();
      const path = downloadUrl.slice(BASE.length);
      const response = await app.fetch(path);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/vnd.apple.pkpass');
      expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.pkpass"$/);
      const etag = response.headers.get('etag')!;
      expect(etag).toMatch(/^".+"$/);
      const bytes = new Uint8Array(await response.arrayBuffer());

      const pass = inspectPkpass(bytes);
      expect(Object.keys(pass.files)).toEqual(expect.arrayContaining(['pass.json', 'manifest.json', 'signature', 'icon.png']));
      expect(pass.manifestMismatches).toEqual([]);
      const verified = pass.opensslVerify();
      expect(verified.output).toContain('Verification successful');
      expect(verified.ok).toBe(true);
      expect(pass.passJson).toMatchObject({
        formatVersion: 1,
        passTypeIdentifier: expect.stringMatching(/^pass\./),
        serialNumber: expect.any(String),
        teamIdentifier: expect.any(String),
        organizationName: expect.any(String),
        description: expect.any(String),
        generic: expect.any(Object),
        barcodes: [expect.objectContaining({ format: 'PKBarcodeFormatQR' })],
      });
      expect(JSON.stringify(pass.passJson)).toContain(wallet.publicKey);

      const again = await app.fetch(path);
      expect(Buffer.from(await again.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true);
      const cached = await app.fetch(path, { headers: { 'if-none-match': etag } });
      expect(cached.status).toBe(304);
    });

    it('answers 404 pass_not_found for an unknown or malformed pass id', async () => {
      for (const query of ['?pass=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', '?pass=x', '']) {
        const response = await app.fetch(`/download${query}`);
        expect(response.status).toBe(404);
        expect((await problemOf(response)).code).toBe('pass_not_found');
      }
    });
  });

  describe('request bodies', () => {
    const wallet = new TestWallet();
    const valid = () => ({ message: 'x', signature: wallet.sign('x'), publicKey: wallet.publicKey });

    it('answers 415 unsupported_media_type unless the body is application/json', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', '']) {
        const response = await app.fetch('/api/v1/claim/wallet-pass', {
          method: 'POST',
          headers: contentType ? { 'content-type': contentType } : {},
          body: JSON.stringify(valid()),
        });
        expect(response.status).toBe(415);
        expect((await problemOf(response)).code).toBe('unsupported_media_type');
      }
      expect((await app.postClaim(valid(), { headers: { 'content-type': 'application/json; charset=utf-8' } })).status).toBe(401);
    });

    it('answers 413 payload_too_large past 16 KiB', async () => {
      const response = await app.postClaim({ ...valid(), padding: 'x'.repeat(16 * 1024) });
      expect(response.status).toBe(413);
      expect((await problemOf(response)).code).toBe('payload_too_large');
      // A body of exactly 16 KiB is read (and then judged on its content).
      const exact = JSON.stringify({ ...valid(), padding: '' });
      const padded = JSON.stringify({ ...valid(), padding: 'x'.repeat(16 * 1024 - exact.length) });
      expect(Buffer.byteLength(padded)).toBe(16 * 1024);
      expect((await app.postClaim(padded)).status).toBe(401);
    });

    it.each([
      ['an array', '[]'],
      ['a string', '"hello"'],
      ['null', 'null'],
      ['broken JSON', '{"message":'],
      ['empty', ''],
    ])('answers 400 invalid_request for %s', async (_, body) => {
      const response = await app.postClaim(body);
      expect(response.status).toBe(400);
      expect((await problemOf(response)).code).toBe('invalid_request');
    });

    it('lists every bad field', async () => {
      const response = await app.postClaim({ message: 7, signature: 'not base58 0OIl', publicKey: bs58.encode(new Uint8Array(31)) });
      expect(response.status).toBe(400);
      const problem = await problemOf(response);
      expect(problem.fields.map((f: { field: string }) => f.field).sort()).toEqual(['message', 'publicKey', 'signature']);
    });

    it('rejects a message over 2048 characters and a 63-byte signature', async () => {
      const long = await app.postClaim({ ...valid(), message: 'm'.repeat(2049) });
      expect((await problemOf(long)).fields).toEqual([{ field: 'message', message: expect.any(String) }]);
      const short = await app.postClaim({ ...valid(), signature: bs58.encode(new Uint8Array(63).fill(3)) });
      expect((await problemOf(short)).fields).toEqual([{ field: 'signature', message: expect.any(String) }]);
    });
  });

  describe('cross-origin', () => {
    it.each(['/health', '/api/v1/claim/init', '/api/v1/claim/wallet-pass', '/download'])('answers a preflight on %s for any origin', async (path) => {
      const response = await app.fetch(path, {
        method: 'OPTIONS',
        headers: { origin: 'https://third.party', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(response.status).toBe(204);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(response.headers.get('access-control-allow-headers')).toMatch(/content-type/i);
    });

    it('allows any origin on responses, errors included', async () => {
      expect((await app.fetch('/health')).headers.get('access-control-allow-origin')).toBe('*');
      expect((await app.fetch('/download?pass=nope')).headers.get('access-control-allow-origin')).toBe('*');
    });
  });

  describe('concurrency', () => {
    it('gives exactly one 201 for 48 concurrent submissions of one signed message, 409 for the rest', async () => {
      const wallet = new TestWallet();
      const { message } = await app.init(wallet.publicKey);
      const body = { message, signature: wallet.sign(message), publicKey: wallet.publicKey };
      const statuses = (await Promise.all(Array.from({ length: 48 }, () => app.postClaim(body)))).map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(47);
    });

    it('gives one wallet claiming with 16 messages at once one pass: one 201, then 200s, one URL', async () => {
      const wallet = new TestWallet();
      const messages = await Promise.all(Array.from({ length: 16 }, () => app.init(wallet.publicKey)));
      const responses = await Promise.all(
        messages.map(({ message }) => app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey })),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 200)).toHaveLength(15);
      const urls = new Set(await Promise.all(responses.map(async (r) => (await r.json()).downloadUrl)));
      expect(urls.size).toBe(1);
    });
  });
});
