// The APNs stand-in answers as Apple documents, over a real TLS HTTP/2 connection from a real
// node:http2 client presenting a Pass Type ID-shaped client certificate, and a separate Node
// process trusts it through NODE_EXTRA_CA_CERTS as the service will.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http2 from 'node:http2';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevelopmentChain } from '@/lib/passes/certificates';
import { APNS_MAX_PAYLOAD_BYTES, ApnsStandIn, STAND_IN_BAD_PAYLOAD } from './apns';
import { createCertificateAuthority, type IssuedCertificate, issuePassTypeCertificate } from './certificates';

const TOPIC = 'pass.example.test';
const TOKEN = 'a1b2c3d4'.repeat(8);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type PushRequest = { method?: string; path?: string; headers?: Record<string, string | string[]>; body?: string | Buffer };
type PushResponse = { status: number; headers: http2.IncomingHttpHeaders; body: string };

/** One HTTP/2 connection trusting the stand-in's CA, with an optional client certificate; a request per push. */
async function connect(apns: ApnsStandIn, client?: IssuedCertificate) {
  const session = http2.connect(apns.url, { ca: apns.caPem, ...(client ? { cert: client.certPem, key: client.keyPem } : {}) });
  session.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('error', reject);
  });
  const send = (request: PushRequest = {}): Promise<PushResponse> =>
    new Promise((resolve, reject) => {
      const stream = session.request(
        {
          ':method': request.method ?? 'POST',
          ':path': request.path ?? `/3/device/${TOKEN}`,
          ...(request.headers ?? { 'apns-topic': TOPIC }),
        },
        { endStream: false },
      ); // Node ends GET streams at once unless told; every push here carries a body
      let status = 0;
      let headers: http2.IncomingHttpHeaders = {};
      let body = '';
      stream.setEncoding('utf8');
      stream.on('response', (h) => {
        headers = h;
        status = Number(h[':status']);
      });
      stream.on('data', (chunk: string) => (body += chunk));
      stream.on('end', () => resolve({ status, headers, body }));
      stream.on('error', reject);
      stream.end(request.body ?? '{}');
    });
  return { send, close: () => new Promise<void>((resolve) => session.close(() => resolve())) };
}

describe('APNs stand-in', () => {
  const appleCa = createCertificateAuthority('Test WWDR CA');
  const passCert = issuePassTypeCertificate(appleCa, TOPIC);
  let apns: ApnsStandIn;

  beforeAll(async () => {
    apns = await ApnsStandIn.start({ clientCa: appleCa.certPem, topic: TOPIC });
  });
  afterAll(async () => {
    await apns.close();
  });

  it('accepts a Wallet push: 200, empty body, the request apns-id echoed, and records it with the client certificate', async () => {
    const client = await connect(apns, passCert);
    const apnsId = '123e4567-e89b-12d3-a456-426614174000';
    const before = apns.pushes.length;
    const response = await client.send({ headers: { 'apns-topic': TOPIC, 'apns-id': apnsId, 'apns-priority': '5', 'apns-push-type': 'background' } });
    await client.close();

    expect(response).toMatchObject({ status: 200, body: '' });
    expect(response.headers['apns-id']).toBe(apnsId);
    const push = apns.pushes[before]!;
    expect(push).toMatchObject({
      method: 'POST',
      path: `/3/device/${TOKEN}`,
      token: TOKEN,
      topic: TOPIC,
      pushType: 'background',
      apnsId,
      body: '{}',
      status: 200,
      reason: undefined,
    });
    expect(push.headers['apns-priority']).toBe('5');
    expect(push.at).toBeInstanceOf(Date);
    expect(push.clientCert).toEqual({
      subject: expect.stringContaining(`CN=Pass Type ID: ${TOPIC}`),
      fingerprint256: new X509Certificate(passCert.certPem).fingerprint256,
      authorized: true,
    });
    expect(push.clientCert!.subject).toContain(`UID=${TOPIC}`);
  });

  it('makes up a UUID apns-id when the request has none', async () => {
    const client = await connect(apns, passCert);
    const response = await client.send();
    await client.close();
    expect(response.status).toBe(200);
    expect(response.headers['apns-id']).toMatch(UUID);
  });

  it('answers a token scripted as gone 410 {"reason":"Unregistered","timestamp":<ms>}, on every push to it', async () => {
    const gone = 'ff'.repeat(32);
    apns.answer(gone, { status: 410, reason: 'Unregistered' });
    const client = await connect(apns, passCert);
    const started = Date.now();
    const first = await client.send({ path: `/3/device/${gone}` });
    const second = await client.send({ path: `/3/device/${gone}` });
    await client.close();

    for (const response of [first, second]) {
      expect(response.status).toBe(410);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['apns-id']).toMatch(UUID);
      const body = JSON.parse(response.body);
      expect(body).toEqual({ reason: 'Unregistered', timestamp: expect.any(Number) });
      // Milliseconds since the epoch, as Apple documents (not seconds).
      expect(body.timestamp).toBeGreaterThanOrEqual(started - 1_000);
      expect(body.timestamp).toBeLessThanOrEqual(Date.now() + 1_000);
    }
    expect(apns.pushes.at(-1)).toMatchObject({ token: gone, status: 410, reason: 'Unregistered' });
  });

  it('plays a scripted sequence once per push, then succeeds again (a retry after 503)', async () => {
    const flaky = 'abcdef01'.repeat(8);
    apns.answer(flaky, [{ status: 503, reason: 'ServiceUnavailable' }, { status: 429, reason: 'TooManyRequests' }, { status: 200 }]);
    const client = await connect(apns, passCert);
    const statuses: Array<[number, string]> = [];
    for (let i = 0; i < 4; i++) {
      const response = await client.send({ path: `/3/device/${flaky}` });
      statuses.push([response.status, response.body]);
    }
    await client.close();
    expect(statuses).toEqual([
      [503, '{"reason":"ServiceUnavailable"}'],
      [429, '{"reason":"TooManyRequests"}'],
      [200, ''],
      [200, ''],
    ]);
  });

  it('answers 403 BadCertificate without a client certificate', async () => {
    const client = await connect(apns);
    const response = await client.send();
    await client.close();
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toEqual({ reason: 'BadCertificate' });
    expect(apns.pushes.at(-1)).toMatchObject({ status: 403, reason: 'BadCertificate', clientCert: null });
  });

  it('answers 403 BadCertificate for a certificate that clientCa did not issue, and records it as not authorized', async () => {
    const stranger = issuePassTypeCertificate(createCertificateAuthority('Some other CA'), TOPIC);
    const client = await connect(apns, stranger);
    const response = await client.send();
    await client.close();
    expect(response.status).toBe(403);
    expect(JSON.parse(response.body)).toEqual({ reason: 'BadCertificate' });
    expect(apns.pushes.at(-1)!.clientCert).toMatchObject({ fingerprint256: new X509Certificate(stranger.certPem).fingerprint256, authorized: false });
  });

  it("validates requests as APNs does, with Apple's status codes and reasons", async () => {
    const client = await connect(apns, passCert);
    const cases: Array<[string, PushRequest, number, string]> = [
      ['GET', { method: 'GET' }, 405, 'MethodNotAllowed'],
      ['DELETE', { method: 'DELETE' }, 405, 'MethodNotAllowed'],
      ['no apns-topic', { headers: {} }, 400, 'MissingTopic'],
      ['another topic', { headers: { 'apns-topic': 'pass.someone.else' } }, 400, 'TopicDisallowed'],
      ['a path not under /3/device/', { path: '/3/devices/abc' }, 404, 'BadPath'],
      ['no device token', { path: '/3/device/' }, 400, 'MissingDeviceToken'],
      ['a token that is not hex', { path: '/3/device/not-a-token' }, 400, 'BadDeviceToken'],
      ['an apns-id that is not a UUID', { headers: { 'apns-topic': TOPIC, 'apns-id': 'nope' } }, 400, 'BadMessageId'],
      ['an unknown push type', { headers: { 'apns-topic': TOPIC, 'apns-push-type': 'pass' } }, 400, 'InvalidPushType'],
      ['priority 7', { headers: { 'apns-topic': TOPIC, 'apns-priority': '7' } }, 400, 'BadPriority'],
      ['an expiration that is not a number', { headers: { 'apns-topic': TOPIC, 'apns-expiration': 'tomorrow' } }, 400, 'BadExpirationDate'],
      ['a repeated apns-topic', { headers: { 'apns-topic': [TOPIC, TOPIC] } }, 400, 'DuplicateHeaders'],
      ['an empty payload', { body: '' }, 400, 'PayloadEmpty'],
      ['a payload over 4096 bytes', { body: JSON.stringify({ x: 'y'.repeat(APNS_MAX_PAYLOAD_BYTES) }) }, 413, 'PayloadTooLarge'],
      ['a payload that is not JSON', { body: 'hello' }, 400, STAND_IN_BAD_PAYLOAD],
      ['a JSON array payload', { body: '[]' }, 400, STAND_IN_BAD_PAYLOAD],
    ];
    for (const [name, request, status, reason] of cases) {
      const response = await client.send(request);
      expect({ name, status: response.status, body: response.body }).toEqual({ name, status, body: JSON.stringify({ reason }) });
      expect(response.headers['apns-id']).toMatch(UUID);
    }
    // Exactly 4096 bytes is still allowed.
    const atLimit = JSON.stringify({ x: 'y'.repeat(APNS_MAX_PAYLOAD_BYTES - 8) });
    expect(Buffer.byteLength(atLimit)).toBe(APNS_MAX_PAYLOAD_BYTES);
    expect((await client.send({ body: atLimit })).status).toBe(200);
    await client.close();
  });

  it('waitForPushes resolves with the pushes once enough have arrived, and says how many came when it times out', async () => {
    const count = apns.pushes.length;
    const waiting = apns.waitForPushes(count + 2, 5_000);
    const client = await connect(apns, passCert);
    await client.send();
    await client.send();
    await client.close();
    expect(await waiting).toHaveLength(count + 2);
    await expect(apns.waitForPushes(count + 3, 50)).rejects.toThrow(`${count + 2} push(es) arrived within 50 ms, expected ${count + 3}`);
  });

  it('accepts any client certificate when no clientCa is given (recorded as not authorized)', async () => {
    const open = await ApnsStandIn.start();
    try {
      const anyCert = issuePassTypeCertificate(createCertificateAuthority('Whatever CA'), 'pass.any.topic');
      const client = await connect(open, anyCert);
      const response = await client.send({ headers: { 'apns-topic': 'pass.any.topic' } });
      await client.close();
      expect(response.status).toBe(200);
      expect(open.pushes[0]!.clientCert).toMatchObject({ authorized: false });
    } finally {
      await open.close();
    }
  });

  it("accepts the service's own development Pass Type ID certificate when clientCa is its development WWDR", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'apns-dev-chain-'));
    try {
      const chain = ensureDevelopmentChain(dataDir);
      const devApns = await ApnsStandIn.start({ clientCa: chain.wwdrCertPem, topic: chain.passTypeIdentifier });
      try {
        const client = await connect(devApns, { certPem: chain.signerCertPem, keyPem: chain.signerKeyPem });
        const response = await client.send({ headers: { 'apns-topic': chain.passTypeIdentifier } });
        await client.close();
        expect(response.status).toBe(200);
        expect(devApns.pushes[0]!.clientCert).toMatchObject({ authorized: true, subject: expect.stringContaining(`UID=${chain.passTypeIdentifier}`) });
      } finally {
        await devApns.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('is trusted by a separate Node process through NODE_EXTRA_CA_CERTS=<caFile>, and only through it', async () => {
    // The child trusts nothing but its default roots plus NODE_EXTRA_CA_CERTS, exactly like the service's process.
    const script = `
      const http2 = require('node:http2');
      const session = http2.connect(process.env.APNS_URL, { cert: process.env.CLIENT_CERT, key: process.env.CLIENT_KEY });
      session.on('error', (error) => { console.log('error ' + error.code); process.exit(0); });
      const stream = session.request({ ':method': 'POST', ':path': '/3/device/' + process.env.TOKEN, 'apns-topic': process.env.TOPIC });
      stream.on('response', (headers) => { console.log(headers[':status']); session.close(); });
      stream.on('error', () => {}); // the session's error says why (the certificate), the stream's only that it was cancelled
      stream.end('{}');
    `;
    const env: NodeJS.ProcessEnv = { ...process.env, APNS_URL: apns.url, CLIENT_CERT: passCert.certPem, CLIENT_KEY: passCert.keyPem, TOKEN, TOPIC };
    delete env.NODE_EXTRA_CA_CERTS;
    const run = promisify(execFile);

    const trusted = await run(process.execPath, ['-e', script], { env: { ...env, NODE_EXTRA_CA_CERTS: apns.caFile }, timeout: 20_000 });
    expect(trusted.stdout.trim()).toBe('200');

    const untrusted = await run(process.execPath, ['-e', script], { env, timeout: 20_000 });
    expect(untrusted.stdout.trim()).toMatch(/^error (UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)$/);
  });
});
