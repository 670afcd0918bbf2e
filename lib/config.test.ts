import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_STATEMENT, loadConfig } from './config';
import { withDefaultUser } from './db/client';

const failureOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
};

describe('loadConfig', () => {
  it('has the contract defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      publicBaseUrl: 'http://localhost:3000',
      domain: 'localhost:3000',
      databaseUrl: undefined,
      redisUrl: undefined,
      rateLimitPerMinute: 60,
      trustProxyHops: 0,
      nonceTtlSeconds: 600,
      chainId: 'mainnet',
      statement: DEFAULT_STATEMENT,
      apple: undefined,
      google: undefined,
      operatorWallets: [],
      webhook: undefined,
      apnsUrl: 'https://api.push.apple.com',
      solanaRpcUrl: undefined,
      claimPolicy: undefined,
      eligibilityRecheckSeconds: 3600,
    });
    expect(config.dataDir).toBe(path.resolve('./data'));
    expect(loadConfig({ PORT: '8080' }).publicBaseUrl).toBe('http://localhost:8080');
  });

  it('takes the domain from PUBLIC_BASE_URL, trailing slash or not', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://passes.example.com/' })).toMatchObject({
      publicBaseUrl: 'https://passes.example.com',
      domain: 'passes.example.com',
    });
    expect(loadConfig({ PUBLIC_BASE_URL: 'http://127.0.0.1:4000' }).domain).toBe('127.0.0.1:4000');
  });

  it.each([
    [{ PORT: 'eighty' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ PUBLIC_BASE_URL: 'http://passes.example.com' }, 'PUBLIC_BASE_URL: must be https://'],
    [{ PUBLIC_BASE_URL: 'not a url' }, 'PUBLIC_BASE_URL'],
    [{ PUBLIC_BASE_URL: 'https://passes.example.com/app' }, 'PUBLIC_BASE_URL'],
    [{ DATABASE_URL: 'mysql://db' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL'],
    [{ RATE_LIMIT_PER_MINUTE: '-1' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ RATE_LIMIT_PER_MINUTE: '1.5' }, 'RATE_LIMIT_PER_MINUTE'],
    [{ TRUST_PROXY: 'yes please' }, 'TRUST_PROXY'],
    [{ NONCE_TTL_SECONDS: '0' }, 'NONCE_TTL_SECONDS'],
    [{ SOLANA_CHAIN_ID: 'main net' }, 'SOLANA_CHAIN_ID'],
    [{ CLAIM_STATEMENT: 'two\nlines' }, 'CLAIM_STATEMENT: must be a single line'],
    [{ CLAIM_STATEMENT: 'Claim \u202eyour pass' }, 'CLAIM_STATEMENT: must not contain bidirectional control characters'],
    [{ PASS_ORGANIZATION_NAME: 'Wallet\u2066 Pass' }, 'PASS_ORGANIZATION_NAME: must not contain bidirectional control characters'],
    [{ PASS_DESCRIPTION: '\u200fpass' }, 'PASS_DESCRIPTION: must not contain bidirectional control characters'],
    [{ APPLE_TEAM_ID: 'ABCDE12345' }, 'APPLE_PASS_TYPE_ID: is required'],
    [{ APPLE_SIGNER_CERT: '/nonexistent/cert.pem' }, 'APPLE_SIGNER_CERT: is neither PEM text'],
    [{ APPLE_SIGNER_KEY_PASSPHRASE: 'secret' }, 'APPLE_SIGNER_KEY_PASSPHRASE'],
    [{ GOOGLE_WALLET_ISSUER_ID: '3388000000012345678' }, 'GOOGLE_SERVICE_ACCOUNT: is required'],
    [{ GOOGLE_SERVICE_ACCOUNT: '{"client_email":"x"}', GOOGLE_WALLET_ISSUER_ID: '3388000000012345678' }, 'GOOGLE_SERVICE_ACCOUNT'],
  ])('refuses %j with one line naming the variable', (env, expected) => {
    const message = failureOf(env);
    expect(message).toContain(expected);
    expect(message).not.toContain('\n');
  });

  it('refuses a DATABASE_URL that is no URL, naming the variable and never its value', () => {
    for (const url of ['postgres://app:pa#ss@db.example/claims', 'postgres://app:12#word@db.example/claims', 'postgres://app:p ss@db:5432x/claims']) {
      const message = failureOf({ DATABASE_URL: url });
      expect(message).toMatch(/^DATABASE_URL: must be a URL/);
      expect(message).toContain('%23');
      for (const part of ['pa#ss', '12#word', 'p ss', 'db.example', 'claims']) expect(message).not.toContain(part);
    }
    expect(loadConfig({ DATABASE_URL: 'postgres://app:pa%23ss@db.example:5432/claims' }).databaseUrl).toBe('postgres://app:pa%23ss@db.example:5432/claims');
    expect(loadConfig({ DATABASE_URL: 'postgresql:///claims?host=/var/run/postgresql' }).databaseUrl).toBeDefined();
    // The database client's own parse, for URLs that did not come through this check (the tests' TEST_DATABASE_URL).
    const thrown = (() => {
      try {
        withDefaultUser('postgres://app:pa#ss@db.example/claims');
      } catch (error) {
        return error as Error & { input?: string };
      }
    })();
    expect(thrown?.message).toMatch(/^the database URL is not a URL/);
    expect(JSON.stringify({ ...thrown, message: thrown?.message })).not.toContain('pa#ss');
  });

  it('reads TRUST_PROXY as a number of proxy hops', () => {
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxyHops).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxyHops).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxyHops).toBe(0);
  });

  it('reads PEM values from text or from a file path', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'config-'));
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    writeFileSync(path.join(dir, 'cert.pem'), pem);
    const config = loadConfig({
      APPLE_PASS_TYPE_ID: 'pass.com.example.test',
      APPLE_TEAM_ID: 'ABCDE12345',
      APPLE_SIGNER_CERT: path.join(dir, 'cert.pem'),
      APPLE_SIGNER_KEY: '-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----',
      APPLE_WWDR_CERT: pem,
    });
    expect(config.apple?.signerCertPem).toBe(pem);
    expect(config.apple?.wwdrCertPem).toBe(pem);
  });

  it('never repeats a secret that is neither PEM/JSON text nor a readable file', () => {
    // Key material pasted without its armour, or quoted by a process manager, is not a path: the
    // error names the variable and the problem, and leaves the value out.
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const body = privateKey.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
    const fragment = body.slice(40, 72);
    const apple = {
      APPLE_PASS_TYPE_ID: 'pass.com.example.test',
      APPLE_TEAM_ID: 'ABCDE12345',
      APPLE_SIGNER_CERT: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
      APPLE_WWDR_CERT: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    };
    for (const [variable, value] of [
      ['APPLE_SIGNER_KEY', body],
      ['APPLE_SIGNER_KEY', privateKey.replace(/-----BEGIN PRIVATE KEY-----/, '----BEGIN PRIVATE KEY----')],
      ['APPLE_SIGNER_CERT', body],
      ['APPLE_WWDR_CERT', body],
    ] as const) {
      const message = failureOf({ ...apple, [variable]: value });
      expect(message).toBe(`${variable}: is neither PEM text (-----BEGIN …) nor the path of a readable PEM file`);
      expect(message).not.toContain(fragment);
    }
    const account = `"{"client_email":"a@b.iam.gserviceaccount.com","private_key":${JSON.stringify(privateKey)}}"`;
    const message = failureOf({ GOOGLE_WALLET_ISSUER_ID: '3388000000012345678', GOOGLE_SERVICE_ACCOUNT: account });
    expect(message).toBe('GOOGLE_SERVICE_ACCOUNT: is neither JSON text (starting with {) nor the path of a readable JSON file');
    expect(message).not.toContain(fragment);
  });

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '', TRUST_PROXY: '' })).toMatchObject({ port: 3000, redisUrl: undefined, trustProxyHops: 0 });
  });

  describe('operators, webhooks, pushes, who may claim', () => {
    const WALLET_A = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
    const WALLET_B = '9C6hybhQ6Aycep9jaUnP6uL9ZYvDjUp1aSkFWPUFJtpj';
    const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
    const whsec = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;

    it('reads OPERATOR_WALLETS as a list of addresses, duplicates and blanks dropped', () => {
      expect(loadConfig({ OPERATOR_WALLETS: ` ${WALLET_A}, ${WALLET_B},${WALLET_A},` }).operatorWallets).toEqual([WALLET_A, WALLET_B]);
    });

    it('names the position of a bad OPERATOR_WALLETS entry, never the list or the entry', () => {
      // A base58 64-byte secret key pasted by mistake must not be printed.
      const secretKey = '4Z7cXSyeFR8wNGMVXUE1TwtKn5D5Vu7FzEv69dokLv7KrQk7h6hu4KUx1MnQ8ADbVHtYbLzbGaFNeKELyvM2EZbW';
      const message = failureOf({ OPERATOR_WALLETS: `${WALLET_A},${secretKey},${WALLET_B}` });
      expect(message).toBe('OPERATOR_WALLETS: entry 2 of 3 is not a wallet address (base58 text of 32 bytes)');
      expect(failureOf({ OPERATOR_WALLETS: `${WALLET_A}, not-an-address` })).toBe(
        'OPERATOR_WALLETS: entry 2 of 2 is not a wallet address (base58 text of 32 bytes)',
      );
    });

    it('takes WEBHOOK_URL and WEBHOOK_SECRET together, the secret in its whsec_ form', () => {
      const secret = whsec(32);
      const config = loadConfig({ WEBHOOK_URL: 'https://hooks.example.com/in', WEBHOOK_SECRET: secret });
      expect(config.webhook).toEqual({ url: 'https://hooks.example.com/in', secret, key: Buffer.from(secret.slice(6), 'base64') });
      expect(config.webhook?.key.length).toBe(32);
      expect(loadConfig({ WEBHOOK_URL: 'http://127.0.0.1:9999/hook', WEBHOOK_SECRET: whsec(24) }).webhook?.key.length).toBe(24);
      expect(loadConfig({ WEBHOOK_URL: 'http://127.0.0.1:9999/hook', WEBHOOK_SECRET: whsec(64) }).webhook?.key.length).toBe(64);
    });

    it.each([
      [{ WEBHOOK_URL: 'https://hooks.example.com' }, 'WEBHOOK_SECRET: is required when WEBHOOK_URL is set'],
      [{ WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, 'WEBHOOK_URL: is required when WEBHOOK_SECRET is set'],
      [{ WEBHOOK_URL: 'ftp://hooks.example.com', WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, 'WEBHOOK_URL: must be an http:// or https:// URL'],
      [{ WEBHOOK_URL: 'hooks.example.com', WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, 'WEBHOOK_URL: must be an http:// or https:// URL'],
      [{ APNS_URL: 'http://api.push.apple.com' }, 'APNS_URL: must be an https:// origin'],
      [{ APNS_URL: 'https://api.push.apple.com/3/device' }, 'APNS_URL: must be an https:// origin'],
      [{ SOLANA_RPC_URL: 'wss://rpc.example.com' }, 'SOLANA_RPC_URL: must be an http:// or https:// URL'],
      [{ SOLANA_RPC_URL: 'https://rpc.example.com', SOLANA_WS_URL: 'https://rpc.example.com' }, 'SOLANA_WS_URL: must be a ws:// or wss:// URL'],
      [{ SOLANA_WS_URL: 'wss://rpc.example.com' }, 'SOLANA_RPC_URL: is required when SOLANA_WS_URL is set'],
      [{ PASSKIT_TOKEN_KEY: 'c2hvcnQ=' }, 'PASSKIT_TOKEN_KEY: must be base64 of at least 32 random bytes'],
      [{ PASSKIT_TOKEN_KEY: 'not base64 at all!' }, 'PASSKIT_TOKEN_KEY: must be base64'],
      [{ GOOGLE_WALLET_API_URL: 'https://walletobjects.googleapis.com/walletobjects/v1' }, 'GOOGLE_WALLET_API_URL: must be an http:// or https:// origin'],
      [{ ELIGIBILITY_RECHECK_SECONDS: '-1' }, 'ELIGIBILITY_RECHECK_SECONDS'],
      [{ ELIGIBILITY_RECHECK_SECONDS: '1.5' }, 'ELIGIBILITY_RECHECK_SECONDS'],
      [{ ELIGIBILITY_RECHECK_SECONDS: '604801' }, 'ELIGIBILITY_RECHECK_SECONDS: must be at most 604800'],
      [{ CLAIM_POLICY: '{"allow": []}' }, 'CLAIM_POLICY: allow must list at least one address'],
      [{ CLAIM_POLICY: `{"collection": "${USDC}"}` }, 'SOLANA_RPC_URL: is required: CLAIM_POLICY has token, collection or group rules'],
    ])('refuses %j with one line naming the variable', (env, expected) => {
      const message = failureOf(env);
      expect(message).toContain(expected);
      expect(message).not.toContain('\n');
    });

    it.each([
      ['not base64', 'whsec_not base64!'],
      ['no prefix', randomBytes(32).toString('base64')],
      ['16 bytes', whsec(16)],
      ['65 bytes', whsec(65)],
    ])('refuses a WEBHOOK_SECRET (%s) without repeating it', (_, secret) => {
      const message = failureOf({ WEBHOOK_URL: 'https://hooks.example.com', WEBHOOK_SECRET: secret });
      expect(message).toMatch(/^WEBHOOK_SECRET: /);
      expect(message).not.toContain(secret.slice(6, 20));
    });

    it('never repeats a bad SOLANA_RPC_URL or WEBHOOK_URL (they may carry an API key)', () => {
      const value = 'rpc.example.com/?api-key=0123456789abcdef';
      expect(failureOf({ SOLANA_RPC_URL: value })).not.toContain('0123456789abcdef');
      expect(failureOf({ WEBHOOK_URL: value, WEBHOOK_SECRET: whsec(32) })).not.toContain('0123456789abcdef');
    });

    it('reads APNS_URL as an origin and SOLANA_RPC_URL as given', () => {
      const config = loadConfig({ APNS_URL: 'https://127.0.0.1:4433/', SOLANA_RPC_URL: 'https://rpc.example.com/v1?api-key=abc' });
      expect(config.apnsUrl).toBe('https://127.0.0.1:4433');
      expect(config.solanaRpcUrl).toBe('https://rpc.example.com/v1?api-key=abc');
      expect(config.solanaWsUrl).toBeUndefined();
      const subscribed = loadConfig({ SOLANA_RPC_URL: 'https://rpc.example.com', SOLANA_WS_URL: 'wss://rpc.example.com/?api-key=abc' });
      expect(subscribed.solanaWsUrl).toBe('wss://rpc.example.com/?api-key=abc');
      expect(failureOf({ SOLANA_RPC_URL: 'https://rpc.example.com', SOLANA_WS_URL: 'rpc.example.com/?api-key=0123456789abcdef' })).not.toContain(
        '0123456789abcdef',
      );
    });

    it('reads PASSKIT_TOKEN_KEY as key bytes, never echoing it, and GOOGLE_WALLET_API_URL as an origin', () => {
      const key = Buffer.alloc(32, 7);
      expect(loadConfig({ PASSKIT_TOKEN_KEY: key.toString('base64') }).passkitTokenKey).toEqual(key);
      expect(loadConfig({ PASSKIT_TOKEN_KEY: key.toString('base64url') }).passkitTokenKey).toEqual(key);
      expect(loadConfig({}).passkitTokenKey).toBeUndefined();
      expect(failureOf({ PASSKIT_TOKEN_KEY: 'c2VjcmV0LXNob3J0' })).not.toContain('c2VjcmV0LXNob3J0');
    });

    it('reads ELIGIBILITY_RECHECK_SECONDS, 0 turning re-checks off', () => {
      expect(loadConfig({ ELIGIBILITY_RECHECK_SECONDS: '0' }).eligibilityRecheckSeconds).toBe(0);
      expect(loadConfig({ ELIGIBILITY_RECHECK_SECONDS: '60' }).eligibilityRecheckSeconds).toBe(60);
    });

    it('parses CLAIM_POLICY from JSON text or a file, and needs SOLANA_RPC_URL only for chain rules', () => {
      expect(loadConfig({ CLAIM_POLICY: `{"allow": ["${WALLET_A}"]}` }).claimPolicy).toEqual({
        kind: 'allow',
        addresses: new Set([WALLET_A]),
        source: 'inline',
      });
      const dir = mkdtempSync(path.join(tmpdir(), 'config-policy-'));
      writeFileSync(path.join(dir, 'policy.json'), JSON.stringify({ any: [{ allow: [WALLET_B] }, { token: { mint: USDC, minAmount: '1000000' } }] }));
      const config = loadConfig({ CLAIM_POLICY: path.join(dir, 'policy.json'), SOLANA_RPC_URL: 'https://rpc.example.com' });
      expect(config.claimPolicy).toEqual({
        kind: 'any',
        rules: [
          { kind: 'allow', addresses: new Set([WALLET_B]), source: 'inline' },
          { kind: 'token', mint: USDC, minAmount: 1_000_000n },
        ],
      });
    });
  });
});

// The configuration of the limits (docs/limits.md): defaults, bounds, the one off switch.
describe('limits configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      pendingMessagesPerKey: 5,
      initBudgetPerSecond: 100,
      maxConnections: 1024,
      maxConnectionsPerIp: 256,
      downloadIdKey: undefined,
      devicesPerPass: 10,
      solanaRpcMaxBytes: 4 * 1024 * 1024,
      solanaRpcRps: 10,
      googleWalletRps: 15,
    });
  });

  it('turns the init budget off with RATE_LIMIT_PER_MINUTE=0, but not the per-key cap', () => {
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '0', INIT_BUDGET_PER_SECOND: '7' })).toMatchObject({ initBudgetPerSecond: 0, pendingMessagesPerKey: 5 });
    expect(loadConfig({ INIT_BUDGET_PER_SECOND: '7' })).toMatchObject({ initBudgetPerSecond: 7 });
  });

  it.each([
    [{ PENDING_MESSAGES_PER_KEY: '0' }, 'PENDING_MESSAGES_PER_KEY: must be at least 1'],
    [{ PENDING_MESSAGES_PER_KEY: 'many' }, 'PENDING_MESSAGES_PER_KEY: must be a whole number'],
    [{ INIT_BUDGET_PER_SECOND: '-1' }, 'INIT_BUDGET_PER_SECOND: must be a whole number'],
    [{ MAX_CONNECTIONS: '0' }, 'MAX_CONNECTIONS: must be at least 1'],
    [{ MAX_CONNECTIONS_PER_IP: '1.5' }, 'MAX_CONNECTIONS_PER_IP: must be a whole number'],
    [{ DEVICES_PER_PASS: '0' }, 'DEVICES_PER_PASS: must be at least 1'],
    [{ SOLANA_RPC_MAX_BYTES: '100' }, 'SOLANA_RPC_MAX_BYTES: must be at least 1024'],
    [{ SOLANA_RPC_RPS: '0' }, 'SOLANA_RPC_RPS: must be at least 1'],
    [{ SOLANA_RPC_RPS: '2.5' }, 'SOLANA_RPC_RPS: must be a whole number'],
    [{ GOOGLE_WALLET_RPS: '0' }, 'GOOGLE_WALLET_RPS: must be at least 1'],
  ])('refuses %j', (env, message) => {
    expect(failureOf(env)).toContain(message);
  });

  it('takes DOWNLOAD_ID_KEY as the bytes of its text, and refuses a short one without repeating it', () => {
    const key = 'q3Xo0k4mW7tYz1pL8sVb2nRc6dJf9hGa5eUi';
    expect(loadConfig({ DOWNLOAD_ID_KEY: key }).downloadIdKey).toEqual(Buffer.from(key));
    const message = failureOf({ DOWNLOAD_ID_KEY: 'short-secret-value' });
    expect(message).toMatch(/^DOWNLOAD_ID_KEY: must be at least 32 characters/);
    expect(message).not.toContain('short-secret-value');
  });
});
