// `next start` without the custom server serves the whole API: every entry of the endpoint table
// through the catch-all route files under app/ (lib/api/next.ts), with the same answers as the
// custom server (the frame is the same). `next dev` serves the same route files; it is not booted
// here because its on-demand compile of the whole library took 40-55 s of both cores.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '@/lib/api/endpoints';
import { type Runner, ServerProcess } from '@/scripts/support/server-process';
import { inspectPkpass } from '../support/pkpass';
import { freePort } from '../support/server';
import { TestWallet } from '../support/wallet';

/** An entry's path with a sample value in each {name} segment. */
const samplePath = (path: string) => path.replace(/\{\w+\}/g, 'sample');

describe('the API through Next.js route handlers (next start)', () => {
  const runner: Runner = 'next-start';
  let server: ServerProcess;

  beforeAll(async () => {
    const port = await freePort();
    server = await ServerProcess.start(
      port,
      { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' },
      { runner, timeoutMs: 120_000 },
    );
  }, 180_000);
  afterAll(async () => {
    await server?.dispose();
  });

  it('routes every entry of the table to the frame: preflights name its methods', async () => {
    for (const entry of ENDPOINTS) {
      const preflight = await server.fetch(samplePath(entry.path), {
        method: 'OPTIONS',
        headers: { origin: 'https://third-party.example', 'access-control-request-method': entry.method },
      });
      expect(preflight.status, `OPTIONS ${entry.path}`).toBe(204);
      expect(preflight.headers.get('access-control-allow-methods'), entry.path).toContain(entry.method);
      expect(preflight.headers.get('access-control-allow-headers'), entry.path).toContain('X-API-KEY');
    }
  }, 240_000);

  it('claims, downloads and checks a pass, and answers problems as the contract says', async () => {
    const wallet = new TestWallet();
    const init = await server.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`);
    expect(init.status).toBe(200);
    expect(init.headers.get('x-request-id')).toMatch(/^[\w-]{36}$/);
    const { message } = (await init.json()) as { message: string };

    const claim = (signature: string) =>
      server.fetch('/api/v1/claim/wallet-pass', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message, signature, publicKey: wallet.publicKey, walletType: 'Phantom' }),
      });
    const forged = await claim(new TestWallet().sign(message));
    expect(forged.status).toBe(401);
    expect(forged.headers.get('content-type')).toBe('application/problem+json');
    expect(await forged.json()).toMatchObject({ code: 'signature_invalid' });

    const created = await claim(wallet.sign(message));
    expect(created.status).toBe(201);
    const { downloadUrl } = (await created.json()) as { downloadUrl: string };
    const download = await server.fetch(new URL(downloadUrl).pathname + new URL(downloadUrl).search);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/vnd.apple.pkpass');
    const pass = inspectPkpass(Buffer.from(await download.arrayBuffer()));
    expect(pass.opensslVerify().ok).toBe(true);
    const again = await server.fetch(new URL(downloadUrl).pathname + new URL(downloadUrl).search, {
      headers: { 'if-none-match': download.headers.get('etag')! },
    });
    expect(again.status).toBe(304);

    const serial = String(pass.passJson.serialNumber);
    expect((await server.fetch(`/api/v1/passes/verify?serial=${serial}`)).status).toBe(200);
    const page = await server.fetch(`/verify?serial=${serial}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(wallet.publicKey);
    const google = await server.fetch(`/api/v1/passes/google?pass=${new URL(downloadUrl).searchParams.get('pass')}`);
    expect(await google.json()).toMatchObject({ status: 404, code: 'google_wallet_not_configured' });
    expect((await server.fetch('/download?pass=not-an-id')).status).toBe(404);
    expect(await (await server.fetch('/health')).json()).toEqual({ status: 'healthy' });
    expect((await server.fetch('/api/v1/openapi.json')).status).toBe(200);
  }, 240_000);

  it('answers a method or a path outside the table as the custom server does, and leaves the pages to Next.js', async () => {
    const problemOf = async (response: Response) => {
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      return ((await response.json()) as { code: string }).code;
    };
    const wrongMethod = await server.fetch('/api/v1/claim/wallet-pass');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST, OPTIONS');
    expect(await problemOf(wrongMethod)).toBe('method_not_allowed');
    const put = await server.fetch('/health', { method: 'PUT' });
    expect(put.status).toBe(405);
    expect(await problemOf(put)).toBe('method_not_allowed');
    for (const path of ['/api/v1/no-such-endpoint', '/passkit/v1/no-such-endpoint']) {
      const unknown = await server.fetch(path, { method: 'POST' });
      expect(unknown.status, path).toBe(404);
      expect(await problemOf(unknown)).toBe('not_found');
    }
    const page = await server.fetch('/no-such-page');
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect((await server.fetch('/', { method: 'POST' })).status).toBe(405);
  }, 120_000);
});
