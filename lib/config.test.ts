import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_STATEMENT, loadConfig } from './config';

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
    [{ APPLE_TEAM_ID: 'ABCDE12345' }, 'APPLE_PASS_TYPE_ID: is required'],
    [{ APPLE_SIGNER_CERT: '/nonexistent/cert.pem' }, 'APPLE_SIGNER_CERT: cannot read file'],
    [{ APPLE_SIGNER_KEY_PASSPHRASE: 'secret' }, 'APPLE_SIGNER_KEY_PASSPHRASE'],
    [{ GOOGLE_WALLET_ISSUER_ID: '3388000000012345678' }, 'GOOGLE_SERVICE_ACCOUNT: is required'],
    [{ GOOGLE_SERVICE_ACCOUNT: '{"client_email":"x"}', GOOGLE_WALLET_ISSUER_ID: '3388000000012345678' }, 'GOOGLE_SERVICE_ACCOUNT'],
  ])('refuses %j with one line naming the variable', (env, expected) => {
    const message = failureOf(env);
    expect(message).toContain(expected);
    expect(message).not.toContain('\n');
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

  it('treats empty values as unset', () => {
    expect(loadConfig({ PORT: '', REDIS_URL: '', TRUST_PROXY: '' })).toMatchObject({ port: 3000, redisUrl: undefined, trustProxyHops: 0 });
  });
});
