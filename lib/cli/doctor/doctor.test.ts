// npm run doctor, run on real files, the real PostgreSQL and Redis of this machine, and real
// sockets: one good configuration, then one broken configuration per check, each of which must
// fail that check alone and name the problem without printing a secret.
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Redis } from 'ioredis';
import forge from 'node-forge';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SolanaPubSubStandIn } from '@/test/support/stand-ins/solana-pubsub';
import { SolanaRpcStandIn } from '@/test/support/stand-ins/solana-rpc';
import { withDefaultUser } from '../../db/client';
import { rsaKeyPair } from '../../passes/certificates';
import { type DoctorOptions, type DoctorReport, formatLine, isFailure, runDoctor } from './index';

// These tests need the PostgreSQL and Redis this machine runs (see FACTS.md); beforeAll fails with
// the reason when either does not answer, rather than letting the good configuration fail vaguely.
const POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const PASS_TYPE_ID = 'pass.com.example.doctor';
const TEAM_ID = 'ABCDE12345';
const WALLET_A = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const WALLET_B = '9C6hybhQ6Aycep9jaUnP6uL9ZYvDjUp1aSkFWPUFJtpj';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const DAY_MS = 24 * 3600 * 1000;

type Chain = { wwdrPem: string; signerPem: string; keyPem: string; ca: { cert: forge.pki.Certificate; key: forge.pki.rsa.PrivateKey } };

/** A stand-in for Apple's WWDR intermediate, named like it (its own key: it is not Apple's). */
function makeCa(organizationalUnit: string): Chain['ca'] {
  const keys = rsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = `01${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = new Date(Date.now() + 3650 * DAY_MS);
  const name = [
    { name: 'commonName', value: 'Apple Worldwide Developer Relations Certification Authority (test stand-in)' },
    { name: 'organizationalUnitName', value: organizationalUnit },
    { name: 'organizationName', value: 'Test' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, critical: true },
  ]);
  cert.sign(keys.key, forge.md.sha256.create());
  return { cert, key: keys.key };
}

/** A Pass Type ID certificate as Apple issues them: subject UID=<pass type id>, CN, OU=<team id>, O, C. */
function makeSigner(ca: Chain['ca'], options: { key?: ReturnType<typeof rsaKeyPair>; notAfter?: Date } = {}) {
  const key = options.key ?? rsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = key.publicKey;
  cert.serialNumber = `02${randomBytes(8).toString('hex')}`;
  cert.validity.notBefore = new Date(Date.now() - DAY_MS);
  cert.validity.notAfter = options.notAfter ?? new Date(Date.now() + 365 * DAY_MS);
  cert.setSubject([
    { type: '0.9.2342.19200300.100.1.1', value: PASS_TYPE_ID },
    { name: 'commonName', value: `Pass Type ID: ${PASS_TYPE_ID}` },
    { name: 'organizationalUnitName', value: TEAM_ID },
    { name: 'organizationName', value: 'Example Org' },
    { name: 'countryName', value: 'US' },
  ]);
  cert.setIssuer(ca.cert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, critical: true },
  ]);
  cert.sign(ca.key, forge.md.sha256.create());
  return { signerPem: forge.pki.certificateToPem(cert), keyPem: key.pem, key };
}

function makeChain(organizationalUnit = 'G4'): Chain & { key: ReturnType<typeof rsaKeyPair> } {
  const ca = makeCa(organizationalUnit);
  const signer = makeSigner(ca);
  return { wwdrPem: forge.pki.certificateToPem(ca.cert), signerPem: signer.signerPem, keyPem: signer.keyPem, key: signer.key, ca };
}

const appleEnv = (chain: { wwdrPem: string; signerPem: string; keyPem: string }) => ({
  APPLE_PASS_TYPE_ID: PASS_TYPE_ID,
  APPLE_TEAM_ID: TEAM_ID,
  APPLE_SIGNER_CERT: chain.signerPem,
  APPLE_SIGNER_KEY: chain.keyPem,
  APPLE_WWDR_CERT: chain.wwdrPem,
});

const listen = async <T extends Server | ReturnType<typeof createTcpServer>>(server: T): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createTcpServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'wpc-doctor-test-'));
  dirs.push(dir);
  return dir;
};

let goodChain: ReturnType<typeof makeChain>;
let otherChain: ReturnType<typeof makeChain>;
let rpcPort: number;
let silentPort: number;
let goodEnv: Record<string, string>;
const servers: { close(): void }[] = [];
const silentSockets: Socket[] = [];

beforeAll(async () => {
  await requireService('PostgreSQL', POSTGRES_URL, async () => {
    const client = new pg.Client({ connectionString: withDefaultUser(POSTGRES_URL), connectionTimeoutMillis: 3000 });
    await client.connect();
    await client.end();
  });
  await requireService('Redis', REDIS_URL, async () => {
    const redis = new Redis(REDIS_URL, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    redis.on('error', () => {});
    try {
      await redis.connect();
      await redis.ping();
    } finally {
      redis.disconnect();
    }
  });

  goodChain = makeChain('G4');
  // Another intermediate, named as Apple's expired G1 was: the usual mix-up.
  otherChain = makeChain('Apple Worldwide Developer Relations');

  // A stand-in Solana JSON-RPC endpoint: answers getHealth as a healthy node does.
  const rpc = createHttpServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify(
          method === 'getHealth' ? { jsonrpc: '2.0', id, result: 'ok' } : { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } },
        ),
      );
    });
  });
  rpcPort = await listen(rpc);
  servers.push(rpc);

  // An endpoint that accepts connections and never answers: an RPC provider that hangs.
  const silent = createTcpServer((socket) => silentSockets.push(socket));
  silentPort = await listen(silent);
  servers.push(silent);

  const google = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { format: 'pem', type: 'pkcs8' },
    publicKeyEncoding: { format: 'pem', type: 'spki' },
  });
  goodEnv = {
    DATA_DIR: freshDir(),
    DATABASE_URL: POSTGRES_URL,
    REDIS_URL,
    ...appleEnv(goodChain),
    GOOGLE_WALLET_ISSUER_ID: '3388000000012345678',
    GOOGLE_SERVICE_ACCOUNT: JSON.stringify({ client_email: 'passes@example.iam.gserviceaccount.com', private_key: google.privateKey }),
    OPERATOR_WALLETS: `${WALLET_A},${WALLET_B}`,
    CLAIM_POLICY: JSON.stringify({ any: [{ allow: [WALLET_A] }, { token: { mint: USDC, minAmount: '1000000' } }] }),
    SOLANA_RPC_URL: `http://127.0.0.1:${rpcPort}/?api-key=rpc-secret-key`,
    WEBHOOK_URL: 'https://hooks.example.com/wallet-pass',
    WEBHOOK_SECRET: `whsec_${randomBytes(32).toString('base64')}`,
  };
});

afterAll(() => {
  for (const socket of silentSockets) socket.destroy();
  for (const server of servers) server.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function requireService(name: string, url: string, probe: () => Promise<void>) {
  try {
    await probe();
  } catch (error) {
    throw new Error(`The doctor tests need ${name} at ${url} (set TEST_DATABASE_URL / TEST_REDIS_URL to use another): ${(error as Error).message}`);
  }
}

const doctor = (env: Record<string, string>, options: Partial<DoctorOptions> = {}) => runDoctor({ env, timeoutMs: 1500, ...options });
const printed = (report: DoctorReport) => report.lines.map(formatLine);
const failures = (report: DoctorReport, production = false) => report.lines.filter((line) => isFailure(line, production)).map(formatLine);

/** Nothing secret in any line: key material, the webhook secret, passwords, the RPC API key. */
function expectNoSecrets(report: DoctorReport | string, env: Record<string, string>) {
  const text = typeof report === 'string' ? report : printed(report).join('\n');
  for (const [name, value] of Object.entries(env)) {
    if (/KEY|SECRET|ACCOUNT|CERT/.test(name) && value.length > 40) {
      const body = value.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
      const middle = Math.floor(body.length / 2);
      expect(text, name).not.toContain(body.slice(middle - 12, middle + 12));
    }
  }
  expect(text).not.toContain('rpc-secret-key');
  expect(text).not.toContain('hunter2');
}

describe('npm run doctor: a good configuration', () => {
  it('passes every check, and prints one ✓ line per check', async () => {
    const report = await doctor(goodEnv);
    expect(failures(report)).toEqual([]);
    expect(report.exitCode).toBe(0);
    expect(printed(report)).toEqual([
      '✓ configuration: every variable is valid',
      '✓ Apple signer key matches the signer certificate',
      expect.stringMatching(/^✓ Apple signer certificate valid until \d{4}-\d\d-\d\d$/),
      '✓ APPLE_WWDR_CERT issued the signer certificate',
      `✓ signer certificate is for APPLE_PASS_TYPE_ID ${PASS_TYPE_ID} and APPLE_TEAM_ID ${TEAM_ID}`,
      '✓ a sample pass builds and its signature verifies (openssl cms -verify)',
      `✓ database answers select 1 (PostgreSQL at ${new URL(POSTGRES_URL).protocol}//${new URL(POSTGRES_URL).host}${new URL(POSTGRES_URL).pathname})`,
      `✓ Redis answers PING (redis://${new URL(REDIS_URL).host})`,
      '✓ Google Wallet service account key is an RSA PKCS#8 key, client_email passes@example.iam.gserviceaccount.com',
      '✓ OPERATOR_WALLETS: 2 operator wallets, each an address',
      '✓ CLAIM_POLICY parses: any(allow (1 address), token)',
      `✓ SOLANA_RPC_URL answers getHealth (http://127.0.0.1:${rpcPort})`,
      `✓ SOLANA_RPC_URL does not serve the DAS API (getAssetsByOwner: method not found): collection rules count token-metadata NFTs only, not compressed NFTs or Metaplex Core assets, and a rule with traits matches no one (http://127.0.0.1:${rpcPort})`,
      '✓ webhooks: WEBHOOK_URL and WEBHOOK_SECRET are well-formed (events go to https://hooks.example.com, signed with a 32-byte secret)',
      '✓ APNS_URL is https (api.push.apple.com)',
    ]);
    expectNoSecrets(report, goodEnv);
  });

  it('exits 0 as a command (npx tsx scripts/doctor.ts), and 1 when a check fails', async () => {
    const good = await runScript(goodEnv);
    expect(good.stderr).toBe('');
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('✓ a sample pass builds and its signature verifies');
    expect(good.stdout.trim().split('\n').at(-1)).toBe('doctor: 15 passed, 0 failed.');
    expectNoSecrets(good.stdout, goodEnv);

    const broken = await runScript({ ...goodEnv, OPERATOR_WALLETS: `${WALLET_A},not-a-wallet` });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toContain('✗ OPERATOR_WALLETS: entry 2 of 2 is not a wallet address (base58 text of 32 bytes). Fix: ');
    expect(broken.stdout.trim().split('\n').at(-1)).toBe('doctor: 13 passed, 1 failed.');
    expect(broken.stdout).not.toContain('not-a-wallet');
  });

  it('accepts the development chain with a warning, which fails only with --production', async () => {
    const env = { DATA_DIR: freshDir(), DATABASE_URL: POSTGRES_URL };
    const report = await doctor(env);
    expect(report.exitCode).toBe(0);
    const warning = report.lines.filter((line) => !line.ok);
    expect(warning.map(formatLine)).toEqual([
      expect.stringMatching(
        new RegExp(
          /^✗ development certificates: passes will not install on a phone .*\. /.source +
            /Fix: set APPLE_PASS_TYPE_ID, .* \(a warning: it fails the doctor only with --production\)$/.source,
        ),
      ),
    ]);
    expect(printed(report)).toContain('✓ a sample pass builds and its signature verifies (openssl cms -verify)');
    expect(printed(report)).toContain('✓ signer certificate is for the development pass type id pass.dev.wallet-pass-claim and team id DEVTEAM000');

    const production = await doctor(env, { production: true });
    expect(production.exitCode).toBe(1);
    expect(failures(production, true)).toEqual([
      expect.stringMatching(
        /^✗ development certificates: passes will not install on a phone .*Fix: set APPLE_PASS_TYPE_ID, .*"Apple Wallet signing material"\)$/,
      ),
    ]);
  });

  it('fails the sample pass when openssl refuses its signature', async () => {
    // `false` stands in for an openssl that rejects the signature: it runs, and exits 1.
    const report = await doctor(goodEnv, { openssl: 'false' });
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      '✗ a sample pass builds and its signature verifies (openssl cms -verify): openssl refused the ' +
        'signature. Fix: report this as a bug, with the openssl version',
    ]);
  });

  it('verifies the sample pass with pkijs when openssl cannot be run, and says so', async () => {
    const report = await doctor(goodEnv, { openssl: 'openssl-not-installed-here' });
    expect(report.exitCode).toBe(0);
    expect(printed(report)).toContain('✓ a sample pass builds and its signature verifies (pkijs: openssl could not be run)');
  });
});

describe('npm run doctor: each broken configuration fails its own check', () => {
  it('an Apple key that belongs to another certificate', async () => {
    const env = { ...goodEnv, APPLE_SIGNER_KEY: otherChain.keyPem };
    const report = await doctor(env);
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      '✗ Apple signer key matches the signer certificate: APPLE_SIGNER_KEY belongs to another certificate. ' +
        'Fix: give the key made with the CSR of this certificate, or the certificate of this key',
      '✗ a sample pass builds and its signature verifies (openssl cms -verify): not built: ' +
        'APPLE_SIGNER_KEY: does not belong to the certificate in APPLE_SIGNER_CERT. Fix: fix the Apple ' +
        'problems above first',
    ]);
    expectNoSecrets(report, env);
  });

  it('a signer certificate that expires in 10 days', async () => {
    const expiring = makeSigner(goodChain.ca, { key: goodChain.key, notAfter: new Date(Date.now() + 10 * DAY_MS + 3600_000) });
    const date = new Date(Date.now() + 10 * DAY_MS + 3600_000).toISOString().slice(0, 10);
    const report = await doctor({ ...goodEnv, APPLE_SIGNER_CERT: expiring.signerPem });
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      `✗ Apple signer certificate valid until ${date}: it expires on ${date}, in 10 days. Fix: create a ` +
        `new Pass Type ID certificate in the Apple Developer portal and replace APPLE_SIGNER_CERT and ` +
        `APPLE_SIGNER_KEY`,
    ]);
  });

  it('a WWDR certificate that did not issue the signer', async () => {
    const report = await doctor({ ...goodEnv, APPLE_WWDR_CERT: otherChain.wwdrPem });
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      '✗ APPLE_WWDR_CERT issued the signer certificate: the signer certificate was issued by "CN=Apple ' +
        'Worldwide Developer Relations Certification Authority (test stand-in), OU=G4, O=Test", not by ' +
        '"CN=Apple Worldwide Developer Relations Certification Authority (test stand-in), OU=Apple Worldwide ' +
        'Developer Relations, O=Test". Fix: use the WWDR intermediate that issued it (today G4: ' +
        'https://www.apple.com/certificateauthority/)',
      expect.stringContaining(
        'sample pass builds and its signature verifies (openssl cms -verify): not built: APPLE_WWDR_CERT: did not issue APPLE_SIGNER_CERT',
      ),
    ]);
  });

  it('a WWDR certificate with the issuer’s name but another key', async () => {
    // Names match, so only the certificate's signature tells that this CA did not issue it.
    const impostor = makeChain('G4');
    const report = await doctor({ ...goodEnv, APPLE_WWDR_CERT: impostor.wwdrPem });
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      "✗ APPLE_WWDR_CERT issued the signer certificate: it has the name of the signer certificate's " +
        'issuer, but its key did not sign it. Fix: use the WWDR intermediate that issued it (today G4: ' +
        'https://www.apple.com/certificateauthority/)',
      expect.stringContaining('not built: APPLE_WWDR_CERT: did not issue APPLE_SIGNER_CERT'),
    ]);
  });

  it('a pass type id (or team id) that is not the certificate’s', async () => {
    const report = await doctor({ ...goodEnv, APPLE_PASS_TYPE_ID: 'pass.com.example.other' });
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      `✗ signer certificate is for APPLE_PASS_TYPE_ID pass.com.example.other and APPLE_TEAM_ID ${TEAM_ID}: ` +
        `the certificate's subject has UID=${PASS_TYPE_ID}, OU=${TEAM_ID}. Fix: set ` +
        `APPLE_PASS_TYPE_ID=${PASS_TYPE_ID} and APPLE_TEAM_ID=${TEAM_ID}, or use the certificate made for ` +
        `pass.com.example.other`,
    ]);
    const team = await doctor({ ...goodEnv, APPLE_TEAM_ID: 'ZZZZZ99999' });
    expect(failures(team)).toEqual([expect.stringContaining(`the certificate's subject has UID=${PASS_TYPE_ID}, OU=${TEAM_ID}`)]);
  });

  it('a database that does not answer (a closed port)', async () => {
    const port = await closedPort();
    const env = { ...goodEnv, DATABASE_URL: `postgres://doctor:hunter2@127.0.0.1:${port}/test` };
    const report = await doctor(env);
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      `✗ database (PostgreSQL at postgres://127.0.0.1:${port}/test): does not answer select 1 (connect ` +
        `ECONNREFUSED 127.0.0.1:${port}). Fix: start PostgreSQL, or correct DATABASE_URL (host, port, ` +
        `database, user, password)`,
    ]);
    expectNoSecrets(report, env);
  });

  it('a Redis that does not answer (a closed port)', async () => {
    const port = await closedPort();
    const env = { ...goodEnv, REDIS_URL: `redis://:hunter2@127.0.0.1:${port}` };
    const report = await doctor(env);
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      `✗ Redis (redis://127.0.0.1:${port}): does not answer PING (connect ECONNREFUSED 127.0.0.1:${port}). ` +
        `Fix: start Redis, or correct REDIS_URL (host, port, password)`,
    ]);
    expectNoSecrets(report, env);
  });

  it('a Google service account key that is EC, not RSA', async () => {
    const ec = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      privateKeyEncoding: { format: 'pem', type: 'pkcs8' },
      publicKeyEncoding: { format: 'pem', type: 'spki' },
    });
    const env = { ...goodEnv, GOOGLE_SERVICE_ACCOUNT: JSON.stringify({ client_email: 'passes@example.iam.gserviceaccount.com', private_key: ec.privateKey }) };
    const report = await doctor(env);
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      '✗ Google Wallet service account key is an RSA PKCS#8 key, client_email ' +
        'passes@example.iam.gserviceaccount.com: GOOGLE_SERVICE_ACCOUNT: private_key is not an RSA private ' +
        'key in PKCS#8 PEM. Fix: download a new JSON key for the service account (Google Cloud console, IAM, ' +
        'Service accounts, Keys)',
    ]);
    expectNoSecrets(report, env);
  });

  it('an OPERATOR_WALLETS entry that is not an address', async () => {
    const report = await doctor({ ...goodEnv, OPERATOR_WALLETS: `${WALLET_A}, ${WALLET_B}, 0x52908400098527886E0F7030069857D2E4169EE7` });
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      '✗ OPERATOR_WALLETS: entry 3 of 3 is not a wallet address (base58 text of 32 bytes). Fix: list ' +
        'wallet addresses separated by commas (README.md, "Configuration")',
    ]);
    expect(printed(report).join('\n')).not.toContain('0x5290');
    // The other checks still ran.
    expect(printed(report)).toContain('✓ CLAIM_POLICY parses: any(allow (1 address), token)');
  });

  it('a CLAIM_POLICY that does not parse', async () => {
    const report = await doctor({ ...goodEnv, CLAIM_POLICY: JSON.stringify({ any: [{ allow: [WALLET_A] }, { token: { mint: USDC, minAmount: '1.5' } }] }) });
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      '✗ CLAIM_POLICY: any[1].token.minAmount must be a whole number of base units written as decimal ' +
        'digits, e.g. "1000000" (no sign, no decimal point). Fix: correct the policy at that place ' +
        '(README.md, "Who may claim" shows each rule)',
    ]);
    expect(printed(report).join('\n')).not.toContain(WALLET_A);
    const notJson = await doctor({ ...goodEnv, CLAIM_POLICY: `{"allow": ["${WALLET_A}",]}` });
    expect(failures(notJson)).toEqual([expect.stringMatching(/^✗ CLAIM_POLICY: is not valid JSON \(line 1, column \d+\)\. Fix: /)]);
  });

  it('an RPC endpoint that does not answer', async () => {
    const env = { ...goodEnv, SOLANA_RPC_URL: `http://127.0.0.1:${silentPort}/v2/rpc-secret-key` };
    const started = Date.now();
    const report = await doctor(env, { timeoutMs: 800 });
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(report.exitCode).toBe(1);
    expect(failures(report)).toEqual([
      `✗ SOLANA_RPC_URL (http://127.0.0.1:${silentPort}): does not answer getHealth (no answer in time). ` +
        `Fix: check the endpoint and its API key, or choose another RPC provider`,
    ]);
    expectNoSecrets(report, env);
  });

  it('SOLANA_WS_URL: a PubSub endpoint that accepts programSubscribe, and one that does not answer', async () => {
    const rpc = await SolanaRpcStandIn.start();
    const pubsub = await SolanaPubSubStandIn.start(rpc);
    try {
      const port = new URL(pubsub.url).port;
      const good = await doctor({ ...goodEnv, SOLANA_WS_URL: `${pubsub.url}/?api-key=rpc-secret-key` });
      expect(failures(good)).toEqual([]);
      expect(printed(good)).toContain(`✓ SOLANA_WS_URL accepts programSubscribe (ws://127.0.0.1:${port})`);
      expect(pubsub.subscribeCalls.at(-1)).toMatchObject({ program: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' });
      const env = { ...goodEnv, SOLANA_WS_URL: `ws://127.0.0.1:${silentPort}/rpc-secret-key` };
      const silentReport = await doctor(env, { timeoutMs: 800 });
      expect(failures(silentReport)).toEqual([
        `✗ SOLANA_WS_URL (ws://127.0.0.1:${silentPort}): does not accept programSubscribe (no answer in time). ` +
          'Fix: check the WebSocket endpoint and its API key (providers publish it beside the RPC URL), or unset it: rounds still re-check',
      ]);
      expectNoSecrets(silentReport, env);
    } finally {
      await pubsub.close();
      await rpc.close();
    }
  });

  it('a policy that reads the chain without SOLANA_RPC_URL', async () => {
    const { SOLANA_RPC_URL: _, ...env } = goodEnv;
    const report = await doctor(env);
    expect(failures(report)).toEqual([
      '✗ SOLANA_RPC_URL: is required: CLAIM_POLICY has token, collection or group rules, which read the chain. ' +
        'Fix: set SOLANA_RPC_URL to a Solana JSON-RPC endpoint such as https://api.mainnet-beta.solana.com',
    ]);
  });

  it('names every bad variable in one run, and still runs the checks the others allow', async () => {
    const report = await doctor({
      ...goodEnv,
      PORT: 'eighty',
      APPLE_SIGNER_KEY: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
      OPERATOR_WALLETS: 'x',
      WEBHOOK_SECRET: 'hunter2',
    });
    expect(report.exitCode).toBe(1);
    const lines = failures(report);
    expect(lines.map((line) => line.split(':')[0])).toEqual(['✗ PORT', '✗ APPLE_SIGNER_KEY', '✗ OPERATOR_WALLETS', '✗ WEBHOOK_SECRET']);
    expect(lines.join('\n')).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7');
    expect(lines.join('\n')).not.toContain('hunter2');
    // Apple, operators and webhooks were named above; the database, Redis and the rest were checked.
    expect(printed(report).filter((line) => line.startsWith('✓'))).toEqual([
      expect.stringMatching(/^✓ database answers select 1/),
      expect.stringMatching(/^✓ Redis answers PING/),
      expect.stringMatching(/^✓ Google Wallet service account key/),
      '✓ CLAIM_POLICY parses: any(allow (1 address), token)',
      expect.stringMatching(/^✓ SOLANA_RPC_URL answers getHealth/),
      expect.stringMatching(/^✓ SOLANA_RPC_URL does not serve the DAS API/),
      '✓ APNS_URL is https (api.push.apple.com)',
    ]);
  });
});

describe('npm run doctor: the embedded database', () => {
  // One PGlite database, made once; the tests take turns holding it.
  let dataDir: string;
  beforeAll(async () => {
    dataDir = freshDir();
    const db = await PGlite.create(path.join(dataDir, 'pglite'));
    await db.query('create table marker (id int)');
    await db.close();
  });

  /** A stand-in for the running service's GET /health. */
  async function healthServer(status: number) {
    const server = createHttpServer((request, response) => {
      response.statusCode = request.url === '/health' ? status : 404;
      response.end(JSON.stringify({ status: status === 200 ? 'healthy' : 'unhealthy' }));
    });
    const port = await listen(server);
    servers.push(server);
    return port;
  }

  /** Another live process holding DATA_DIR/pglite.lock, as the running service does. */
  async function holdLock(): Promise<ChildProcess> {
    const lock = path.join(dataDir, 'pglite.lock');
    const child = spawn(
      process.execPath,
      ['-e', `require('fs').writeFileSync(${JSON.stringify(lock)}, String(process.pid)); console.log('held'); setInterval(() => {}, 1000)`],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout!.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
    });
    return child;
  }

  async function release(child: ChildProcess) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill();
    await exited;
    rmSync(path.join(dataDir, 'pglite.lock'), { force: true });
  }

  it('when no process holds it: opens it, runs select 1, closes it and releases the lock', async () => {
    const port = await healthServer(200);
    const report = await doctor({ DATA_DIR: dataDir, PORT: String(port) });
    expect(printed(report)).toContain(`✓ embedded database in DATA_DIR answers select 1 (${dataDir})`);
    expect(existsSync(path.join(dataDir, 'pglite.lock'))).toBe(false);
    // Opened, not replaced: the table made before is still there.
    const db = await PGlite.create(path.join(dataDir, 'pglite'));
    expect((await db.query('select count(*)::int as n from marker')).rows).toEqual([{ n: 0 }]);
    await db.close();
  });

  it('when the running service holds it: never opens it, and asks that service’s /health instead', async () => {
    const holder = await holdLock();
    try {
      const port = await healthServer(200);
      const report = await doctor({ DATA_DIR: dataDir, PORT: String(port) });
      expect(printed(report)).toContain(
        `✓ embedded database in use by the running service (pid ${holder.pid}); GET http://127.0.0.1:${port}/health answers 200`,
      );
      expect(report.exitCode).toBe(0);
      // The lock is still the holder's: the doctor did not take it over.
      expect(readFileSync(path.join(dataDir, 'pglite.lock'), 'utf8')).toBe(String(holder.pid));

      const unhealthy = await healthServer(503);
      const sick = await doctor({ DATA_DIR: dataDir, PUBLIC_BASE_URL: `http://127.0.0.1:${unhealthy}` });
      expect(failures(sick)).toEqual([
        `✗ embedded database in use by the running service (pid ${holder.pid}); GET ` +
          `http://127.0.0.1:${unhealthy}/health answers 200: it answered 503. Fix: read the log of process ` +
          `${holder.pid}: its database does not answer`,
      ]);

      const nobody = await closedPort();
      const gone = await doctor({ DATA_DIR: dataDir, PORT: String(nobody) });
      expect(failures(gone)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^✗ embedded database in use by the running service \\(pid ${holder.pid}\\); .*: it does not answer ` +
              `\\(fetch failed: ECONNREFUSED\\)\\. Fix: if process ${holder.pid} is not this service`,
          ),
        ),
      ]);
    } finally {
      await release(holder);
    }
  });

  it('when DATA_DIR has no database yet: says the service will create it, and creates nothing', async () => {
    const empty = freshDir();
    const report = await doctor({ DATA_DIR: empty });
    expect(printed(report)).toContain(`✓ embedded database: none in DATA_DIR yet (${empty}); the service creates it at first start`);
    expect(existsSync(path.join(empty, 'pglite'))).toBe(false);
  });
});

/** `npx tsx scripts/doctor.ts` with only `env` (and what npx needs to run) in its environment. */
function runScript(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['tsx', 'scripts/doctor.ts'], {
      cwd: path.resolve(__dirname, '..', '..', '..'),
      env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env } as unknown as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr: stderr.replace(/^npm warn .*\n/gm, '') }));
  });
}
