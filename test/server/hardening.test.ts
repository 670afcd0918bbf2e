// The limits a hostile or careless client meets, over real sockets against the built server:
// page headers whatever the request says, page methods, refused bodies, slow headers, connection
// caps, TRUST_PROXY, secrets in start-up errors, and DATA_DIR's permissions (docs/limits.md).
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@/lib/config';
import { ServerProcess } from '../../scripts/support/server-process';
import { TEST_ISSUER_ID, testServiceAccount } from '../support/google';
import { freePort, type RunningServer, startServer, startServerExpectingRefusal } from '../support/server';
import { TestWallet } from '../support/wallet';

type RawExchange = { text: string; status?: number; closed: boolean; closedAfterMs?: number };

/**
 * Opens a connection, writes `chunks` (a function gets the socket for timed writes), and collects
 * what comes back until the server closes the connection or `waitMs` passes.
 */
function exchange(port: number, chunks: string | ((socket: Socket) => void), waitMs = 3000): Promise<RawExchange> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      resolve({ text, status: status ? Number(status) : undefined, closed, closedAfterMs: closed ? Date.now() - started : undefined });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => finish(true));
    socket.on('error', () => {}); // a reset counts as closed, reported by 'close'
    socket.on('connect', () => {
      if (typeof chunks === 'string') socket.write(chunks);
      else chunks(socket);
    });
  });
}

const headerOf = (text: string, name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(text.split('\r\n\r\n')[0]!)?.[1]?.trim();

/** Opens a connection and resolves once it is either usable (answers a request) or refused. */
function connectionOutcome(port: number): Promise<{ socket: Socket; accepted: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    socket.once('close', () => resolve({ socket, accepted: false }));
    socket.once('connect', () => {
      // A refused connection is closed by the server at once; an accepted one answers.
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      socket.once('data', () => resolve({ socket, accepted: true }));
    });
  });
}

/** A short HEADERS_TIMEOUT_MS, so that the slow-headers test waits seconds rather than the default's 15. */
const HEADERS_TIMEOUT_MS = 2000;

const STATIC_PAGE_HEADERS = ['x-content-type-options', 'referrer-policy', 'x-frame-options', 'permissions-policy', 'cross-origin-opener-policy'];

describe('a server with default limits', () => {
  let server: RunningServer;
  let dataDir: string;
  beforeAll(async () => {
    // A DATA_DIR that does not exist yet: the server creates it, with its parent.
    dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'wpc-harden-')), 'nested', 'data');
    server = await startServer({ DATA_DIR: dataDir, MAX_CONNECTIONS_PER_IP: '4', HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) });
  });
  afterAll(async () => {
    await server.dispose();
    rmSync(path.dirname(path.dirname(dataDir)), { recursive: true, force: true });
  });

  // First: fetch() keeps the connections of later tests open (keep-alive), which would count here.
  it('refuses connections past MAX_CONNECTIONS_PER_IP from one address, and takes new ones once some close', async () => {
    const held = await Promise.all(Array.from({ length: 4 }, () => connectionOutcome(server.port)));
    expect(held.map((c) => c.accepted)).toEqual([true, true, true, true]);
    const fifth = await connectionOutcome(server.port);
    expect(fifth.accepted).toBe(false);
    held[0]!.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await connectionOutcome(server.port);
    expect(again.accepted).toBe(true);
    for (const c of [...held, again]) c.socket.destroy();
  });

  it.each([
    ['no prefetch header', {}],
    ['Purpose: prefetch', { purpose: 'prefetch' }],
    ['Sec-Purpose: prefetch', { 'sec-purpose': 'prefetch' }],
    ['Next-Router-Prefetch: 1', { 'next-router-prefetch': '1' }],
    ['Next-Router-Prefetch and RSC', { 'next-router-prefetch': '1', rsc: '1' }],
    ['X-Middleware-Prefetch: 1', { 'x-middleware-prefetch': '1' }],
  ])('sends the page security headers with %s', async (_, headers) => {
    for (const page of ['/', '/docs', '/no-such-page']) {
      const response = await server.fetch(page, { headers });
      for (const name of STATIC_PAGE_HEADERS) expect(response.headers.get(name), `${name} on ${page}`).toBeTruthy();
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      await response.arrayBuffer();
    }
    const home = await server.fetch('/', { headers });
    expect(home.headers.get('content-security-policy')).toMatch(/script-src[^;]*'nonce-/);
    // Read to the end: an unread body keeps its connection, and this server allows 4 per address.
    await home.arrayBuffer();
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])('answers %s on a page 405 before reading its body, and closes', async (method) => {
    // A 10 MB body is announced; only its first bytes are sent. The answer comes anyway.
    const result = await exchange(
      server.port,
      `${method} / HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 10000000\r\n\r\n${'a'.repeat(1000)}`,
    );
    expect(result.status).toBe(405);
    expect(headerOf(result.text, 'allow')).toBe('GET, HEAD');
    expect(headerOf(result.text, 'connection')).toBe('close');
    expect(result.closed).toBe(true);
  });

  it('closes the connection after refusing a body it did not read (415, 413)', async () => {
    const wrongType = await exchange(
      server.port,
      `POST /api/v1/claim/wallet-pass HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nContent-Type: text/plain\r\nContent-Length: 100000\r\n\r\n${'a'.repeat(500)}`,
    );
    expect(wrongType.status).toBe(415);
    expect(headerOf(wrongType.text, 'connection')).toBe('close');
    expect(wrongType.closed).toBe(true);

    const tooLarge = await exchange(
      server.port,
      `POST /api/v1/claim/wallet-pass HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\nContent-Type: application/json\r\nContent-Length: 1000000000\r\n\r\n{"a":"`,
    );
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.closed).toBe(true);

    // A streamed body past the limit: refused mid-way, then closed rather than drained.
    const streamed = await exchange(server.port, (socket) => {
      socket.write('POST /api/v1/claim/wallet-pass HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n');
      const chunk = 'a'.repeat(4096);
      const timer = setInterval(() => {
        if (socket.destroyed) return clearInterval(timer);
        socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      }, 20);
      socket.once('close', () => clearInterval(timer));
    });
    expect(streamed.status).toBe(413);
    expect(streamed.closed).toBe(true);
  });

  it('keeps the connection open after a body it read (a claim answered 401)', async () => {
    const body = JSON.stringify({ message: 'x', signature: '1'.repeat(88), publicKey: new TestWallet().publicKey });
    const result = await exchange(
      server.port,
      `POST /api/v1/claim/wallet-pass HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      1500,
    );
    expect(result.status).toBeGreaterThanOrEqual(400);
    expect(result.status).toBeLessThan(500);
    expect(result.closed).toBe(false);
  });

  it('gives a client 15 s to send its headers unless HEADERS_TIMEOUT_MS says otherwise', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1:3000' }).headersTimeoutMs).toBe(15_000);
  });

  it('cuts off a client that sends its headers too slowly (within HEADERS_TIMEOUT_MS)', async () => {
    const result = await exchange(
      server.port,
      (socket) => {
        socket.write('GET / HTTP/1.1\r\nHost: x\r\n');
        let n = 0;
        const timer = setInterval(() => {
          if (socket.destroyed) return clearInterval(timer);
          socket.write(`X-Slow-${n++}: a\r\n`); // never the blank line that ends the headers
        }, HEADERS_TIMEOUT_MS / 15);
        socket.once('close', () => clearInterval(timer));
      },
      HEADERS_TIMEOUT_MS + 10_000,
    );
    expect(result.closed).toBe(true);
    // Node checks the timeout once a second (server.ts), so the cut comes up to a second late.
    expect(result.closedAfterMs!).toBeGreaterThan(HEADERS_TIMEOUT_MS - 1000);
    expect(result.closedAfterMs!).toBeLessThan(HEADERS_TIMEOUT_MS + 2500);
    expect(result.status === undefined || result.status === 408).toBe(true);
  }, 30_000);

  it('creates DATA_DIR and everything in it for the service user only', async () => {
    // A claim and a download, so that every file the service writes exists.
    const wallet = new TestWallet();
    const issued = await (await server.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`)).json();
    const claim = await server.fetch('/api/v1/claim/wallet-pass', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: issued.message, signature: wallet.sign(issued.message), publicKey: wallet.publicKey }),
    });
    expect(claim.status).toBe(201);
    const { downloadUrl } = await claim.json();
    expect((await fetch(downloadUrl)).status).toBe(200);

    const open: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if ((statSync(full).mode & 0o077) !== 0) open.push(`${full} ${(statSync(full).mode & 0o777).toString(8)}`);
        if (entry.isDirectory()) walk(full);
      }
    };
    // The process umask, for whatever the database writes later.
    expect(/^Umask:\s+(\d+)$/m.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1]).toBe('0077');
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(path.dirname(dataDir)).mode & 0o777).toString(8)).toBe('700');
    walk(dataDir);
    expect(readdirSync(dataDir)).toEqual(expect.arrayContaining(['pglite', 'dev-certificates', 'download-id.key']));
    expect(open).toEqual([]);
  });
});

describe('an existing DATA_DIR open to others', () => {
  let server: RunningServer;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-harden-open-'));
    chmodSync(dataDir, 0o755);
    server = await startServer({ DATA_DIR: dataDir });
  });
  afterAll(async () => {
    await server.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is made private at start', () => {
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
  });
});

describe('next start alone (the route handlers, with proxy.ts in front of the pages)', () => {
  let server: ServerProcess;
  beforeAll(async () => {
    const port = await freePort();
    server = await ServerProcess.start(port, { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '0' }, { runner: 'next-start' });
  });
  afterAll(() => server.dispose());

  it('answers a page POST 405 with a body far past the proxy body limit', async () => {
    const response = await server.fetch('/', { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(1024 * 1024, 1) });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect((await response.json()).code).toBe('method_not_allowed');
    // GET still renders the page, with its headers.
    const page = await server.fetch('/', { headers: { purpose: 'prefetch' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('content-security-policy')).toMatch(/'nonce-/);
  });
});

describe('behind two trusted proxies, with small caps', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ TRUST_PROXY: '2', RATE_LIMIT_PER_MINUTE: '2', MAX_CONNECTIONS: '3', MAX_CONNECTIONS_PER_IP: '1' });
  });
  afterAll(() => server.dispose());

  // First: fetch() keeps the connections of later tests open (keep-alive), which would count here.
  it("caps open connections at MAX_CONNECTIONS (the per-IP cap is the proxy's job here)", async () => {
    // MAX_CONNECTIONS_PER_IP=1 would refuse the second: behind a proxy it is not applied.
    const held = await Promise.all(Array.from({ length: 3 }, () => connectionOutcome(server.port)));
    expect(held.map((c) => c.accepted)).toEqual([true, true, true]);
    const fourth = await connectionOutcome(server.port);
    expect(fourth.accepted).toBe(false);
    for (const c of held) c.socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await connectionOutcome(server.port);
    expect(again.accepted).toBe(true);
    again.socket.destroy();
  });

  const init = (forwardedFor?: string) =>
    server.fetch(`/api/v1/claim/init?publicKey=${new TestWallet().publicKey}`, { headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });

  it('keys the rate limit on the client two entries from the right of X-Forwarded-For', async () => {
    const statuses = [];
    for (const client of ['198.51.100.1', '198.51.100.1', '198.51.100.1', '198.51.100.2']) {
      statuses.push((await init(`forged, ${client}, 10.0.0.1`)).status);
    }
    expect(statuses).toEqual([200, 200, 429, 200]);
  });

  it('uses the peer address when X-Forwarded-For has fewer entries than the hops', async () => {
    // One entry each, all different: had the header been believed, no budget would run out.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await init(`203.0.113.${i}`)).status);
    expect(statuses).toEqual([200, 200, 429]);
    const response = await init('203.0.113.9');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('start-up with a misconfigured secret', () => {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const body = privateKey.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  const fragment = body.slice(100, 140);
  const ec = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    privateKeyEncoding: { type: 'sec1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  const ecFragment = ec.privateKey.split('\n')[1]!.slice(0, 40);
  const apple = {
    APPLE_PASS_TYPE_ID: 'pass.com.example.test',
    APPLE_TEAM_ID: 'ABCDE12345',
    APPLE_SIGNER_CERT: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    APPLE_WWDR_CERT: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  };
  const google = JSON.parse(testServiceAccount().json) as Record<string, string>;

  // Each start is a process of its own, refused before it listens: they run side by side.
  it.concurrent.each([
    ['APPLE_SIGNER_KEY', 'key body without its PEM armour', { ...apple, APPLE_SIGNER_KEY: body }, fragment],
    ['GOOGLE_SERVICE_ACCOUNT', 'key body instead of JSON', { GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID, GOOGLE_SERVICE_ACCOUNT: body }, fragment],
    [
      'GOOGLE_SERVICE_ACCOUNT',
      'broken JSON around a key',
      { GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID, GOOGLE_SERVICE_ACCOUNT: `{"private_key": "${body}"` },
      fragment,
    ],
    [
      'GOOGLE_SERVICE_ACCOUNT',
      'a private key of the wrong kind',
      { GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID, GOOGLE_SERVICE_ACCOUNT: JSON.stringify({ ...google, private_key: ec.privateKey }) },
      ecFragment,
    ],
    ['DOWNLOAD_ID_KEY', 'a key too short', { DOWNLOAD_ID_KEY: 'hunter2-short-secret' }, 'hunter2'],
  ])('stops with one line naming %s (%s), without the value', async (variable, _, env, secret) => {
    const { code, stderr } = await startServerExpectingRefusal(env);
    expect(code).toBe(1);
    const lines = stderr.split('\n').filter((line) => line.trim());
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^wallet-pass-claim: ${variable}: `));
    expect(stderr).not.toContain(secret);
  });
});
