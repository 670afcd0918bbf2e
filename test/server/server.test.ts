// The service as its users run it: `tsx server.ts` over the production build, spoken to over
// real sockets by this test and by a client in another language.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectPkpass } from '../support/pkpass';
import { type RunningServer, startServer, startServerExpectingRefusal } from '../support/server';
import { TestWallet } from '../support/wallet';

describe('start-up', () => {
  // Each start is a process of its own, refused before it listens: they run side by side.
  it.concurrent.each([
    [{ PUBLIC_BASE_URL: 'http://passes.example.com' }, 'PUBLIC_BASE_URL'],
    [{ RATE_LIMIT_PER_MINUTE: 'lots' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ DATABASE_URL: 'postgres://127.0.0.1:1/none' }, 'DATABASE_URL'],
  ])('stops on %j with one line naming the variable', async (env, variable) => {
    const { code, stderr } = await startServerExpectingRefusal({ DATABASE_TIMEOUT_MS: '500', ...env });
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((line) => line.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^wallet-pass-claim: ${variable}: `));
  });
});

describe('over HTTP', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ RATE_LIMIT_PER_MINUTE: '5', LOG_LEVEL: 'info' });
  });
  afterAll(() => server.dispose());

  /** A raw request, so headers such as Host go out exactly as written. */
  const raw = (pathAndQuery: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer[] } = {}) =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: server.port, path: pathAndQuery, method: options.method ?? 'GET', headers: options.headers },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        },
      );
      req.on('error', reject);
      if (Array.isArray(options.body)) for (const chunk of options.body) req.write(chunk);
      else if (options.body) req.write(options.body);
      req.end();
    });

  it("ignores a spoofed Host: the message domain is PUBLIC_BASE_URL's host", async () => {
    const wallet = new TestWallet();
    const response = await raw(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, {
      headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
    });
    expect(response.status).toBe(200);
    const issued = JSON.parse(response.body);
    expect(issued.domain).toBe(`127.0.0.1:${server.port}`);
    expect(response.body).not.toContain('evil');
  });

  it('answers 413 to a streamed body past 16 KiB without buffering it', async () => {
    const chunk = Buffer.alloc(4096, 'a');
    const response = await raw('/api/v1/claim/wallet-pass', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: Array.from({ length: 8 }, () => chunk),
    });
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).code).toBe('payload_too_large');
  });

  it('keys the rate limit on the socket peer, whatever headers claim otherwise', async () => {
    const wallet = new TestWallet();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await raw(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, {
        headers: { 'x-forwarded-for': `198.51.100.${i}`, 'x-wallet-pass-peer-address': `192.0.2.${i}`, 'x-real-ip': `192.0.2.${i}` },
      });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    // The budget is 5 per minute; the two tests before used 2 of it.
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('sends no X-Powered-By, and a request id on every answer', async () => {
    const response = await raw('/health');
    expect(response.headers['x-powered-by']).toBeUndefined();
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('logs one structured line per request, without query strings', async () => {
    await raw('/download?pass=secretsecretsecretsecretsecretsecretsecret1');
    await new Promise((resolve) => setTimeout(resolve, 200));
    const lines = server.logs.filter((line) => line.event === 'request');
    expect(lines.length).toBeGreaterThanOrEqual(5);
    for (const line of lines) {
      expect(line).toMatchObject({
        requestId: expect.any(String),
        method: expect.any(String),
        path: expect.any(String),
        status: expect.any(Number),
        durationMs: expect.any(Number),
      });
      expect(String(line.path)).not.toContain('?');
    }
    expect(server.text()).not.toContain('secretsecretsecret');
  });
});

describe('a client in another language', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ LOG_LEVEL: 'info' });
  });
  afterAll(() => server.dispose());

  it('claims a pass from the contract alone, and openssl verifies the pass; logs hold no secret', async () => {
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'py-client-')), 'pass.pkpass');
    const downloadUrl = execFileSync('python3', ['test/clients/claim.py', server.baseUrl, out], { encoding: 'utf8', timeout: 60_000 }).trim();
    expect(downloadUrl).toMatch(/\/download\?pass=[A-Za-z0-9_-]{43}$/);
    const pass = inspectPkpass(readFileSync(out));
    expect(pass.manifestMismatches).toEqual([]);
    expect(pass.opensslVerify()).toMatchObject({ ok: true, output: expect.stringContaining('Verification successful') });
    expect(pass.passJson.generic).toBeDefined();

    // Secrets never reach the logs in full: not the pass id, nor any nonce or signature.
    const passId = new URL(downloadUrl).searchParams.get('pass')!;
    expect(server.text()).not.toContain(passId);
    const wallet = new TestWallet();
    const issued = await (await fetch(`${server.baseUrl}/api/v1/claim/init?publicKey=${wallet.publicKey}`)).json();
    const signature = wallet.sign(issued.message);
    await fetch(`${server.baseUrl}/api/v1/claim/wallet-pass`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: issued.message, signature, publicKey: wallet.publicKey }),
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(server.text()).not.toContain(issued.nonce);
    expect(server.text()).not.toContain(signature);
  });
});
