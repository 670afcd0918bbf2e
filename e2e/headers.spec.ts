// Security headers: the page's Content-Security-Policy (a fresh nonce on every script Next.js
// writes), framing refused, no sniffing, no referrer, no X-Powered-By; and the API's CORS intact.
import { expect, test } from '@playwright/test';

test('the page sends a nonce-based CSP and the other security headers', async ({ request }) => {
  const first = await request.get('/');
  const second = await request.get('/');
  const csp = first.headers()['content-security-policy'];
  expect(csp).toBeTruthy();
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp!)?.[1];
  expect(nonce, 'a nonce in script-src').toBeTruthy();
  expect(second.headers()['content-security-policy']).not.toContain(nonce!);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(first.headers()['x-content-type-options']).toBe('nosniff');
  expect(first.headers()['referrer-policy']).toBe('no-referrer');
  expect(first.headers()['x-frame-options']).toBe('DENY');
  expect(first.headers()['x-powered-by']).toBeUndefined();

  // Every script tag Next.js wrote carries this response's nonce.
  const html = await first.text();
  const scripts = html.match(/<script\b[^>]*>/g) ?? [];
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.filter((tag) => !tag.includes(`nonce="${nonce}"`))).toEqual([]);
});

test('a prefetch header cannot switch the page headers off', async ({ request }) => {
  const prefetches: Record<string, string>[] = [{ purpose: 'prefetch' }, { 'next-router-prefetch': '1' }, { 'sec-purpose': 'prefetch' }];
  for (const headers of prefetches) {
    const page = await request.get('/', { headers });
    const name = JSON.stringify(headers);
    expect(page.headers()['content-security-policy'], name).toMatch(/'nonce-[A-Za-z0-9+/=]+'/);
    expect(page.headers()['x-frame-options'], name).toBe('DENY');
    expect(page.headers()['permissions-policy'], name).toContain('camera=()');
    expect(page.headers()['cross-origin-opener-policy'], name).toBe('same-origin-allow-popups');
  }
});

test('the API keeps its CORS headers and gets no page policy', async ({ request }) => {
  const init = await request.get('/api/v1/claim/init?publicKey=11111111111111111111111111111111');
  expect(init.status()).toBe(200);
  expect(init.headers()['access-control-allow-origin']).toBe('*');
  expect(init.headers()['content-security-policy']).toBeUndefined();
  expect(init.headers()['x-powered-by']).toBeUndefined();
  const preflight = await request.fetch('/api/v1/claim/wallet-pass', {
    method: 'OPTIONS',
    headers: { origin: 'https://third-party.example', 'access-control-request-method': 'POST' },
  });
  expect(preflight.status()).toBe(204);
  expect(preflight.headers()['access-control-allow-origin']).toBe('*');
  for (const path of ['/health', '/download?pass=unknown']) {
    const response = await request.get(path);
    expect(response.headers()['access-control-allow-origin'], path).toBe('*');
    expect(response.headers()['content-security-policy'], path).toBeUndefined();
  }
});

test('a page that does not exist gets the same policy, and its scripts the nonce', async ({ request }) => {
  const missing = await request.get('/no-such-page');
  expect(missing.status()).toBe(404);
  const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(missing.headers()['content-security-policy'] ?? '')?.[1];
  expect(nonce).toBeTruthy();
  const scripts = (await missing.text()).match(/<script\b[^>]*>/g) ?? [];
  expect(scripts.filter((tag) => !tag.includes(`nonce="${nonce}"`))).toEqual([]);
});

test('the door page alone may use the camera, and compile WebAssembly; every other page keeps both off', async ({ request }) => {
  const door = await request.get('/scan');
  expect(door.status()).toBe(200);
  const doorPolicy = door.headers()['permissions-policy'];
  expect(doorPolicy).toContain('camera=(self)');
  expect(doorPolicy).toContain('microphone=()');
  expect(doorPolicy).not.toContain('camera=()');
  const doorCsp = door.headers()['content-security-policy']!;
  expect(doorCsp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic' 'wasm-unsafe-eval';/);
  expect(doorCsp.replace("'wasm-unsafe-eval'", '')).not.toMatch(/unsafe-(inline|eval)/);
  for (const path of ['/', '/operator', '/no-such-page', '/scan/elsewhere']) {
    const page = await request.get(path);
    expect(page.headers()['permissions-policy'], path).toContain('camera=()');
    expect(page.headers()['permissions-policy'], path).not.toContain('camera=(self)');
    expect(page.headers()['content-security-policy'] ?? '', path).not.toContain('wasm');
  }
});

test('the door page’s WebAssembly reader comes from this origin, cached for good under its version', async ({ request }) => {
  const { ZXING_WASM_SHA256 } = await import('zxing-wasm/reader');
  const versioned = await request.get(`/scan/zxing_reader.wasm?v=${ZXING_WASM_SHA256.slice(0, 16)}`);
  expect(versioned.status()).toBe(200);
  expect(versioned.headers()['content-type']).toBe('application/wasm');
  expect(versioned.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  const bytes = await versioned.body();
  expect(bytes.subarray(0, 4)).toEqual(Buffer.from([0, 0x61, 0x73, 0x6d])); // \0asm
  const { createHash } = await import('node:crypto');
  expect(createHash('sha256').update(bytes).digest('hex')).toBe(ZXING_WASM_SHA256);
  const unversioned = await request.get('/scan/zxing_reader.wasm');
  expect(unversioned.headers()['cache-control']).toBe('no-cache');
});
