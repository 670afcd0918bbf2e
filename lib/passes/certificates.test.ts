// Apple signing material is checked at start-up: a mistake stops the service with one line that
// names the variable, instead of surfacing at the first download (or on a phone).
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inspectPkpass } from '@/test/support/pkpass';
import { type AppleSigning, ConfigError } from '../config';
import {
  checkAppleSigning,
  ensureDevelopmentChain,
  issuance,
  parseCertificate,
  passTypeOfCertificate,
  readSignerKey,
  type SigningMaterial,
  validityAt,
} from './certificates';
import { createManifestSigner } from './manifest-signer';
import { buildPkpass } from './pkpass';

describe('pass signing material', () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wpc-certs-'));
    dirs.push(dir);
    return dir;
  };
  let chain: SigningMaterial;
  let apple: AppleSigning;

  beforeAll(() => {
    chain = ensureDevelopmentChain(freshDir());
    apple = {
      passTypeIdentifier: 'pass.com.example.wallet',
      teamIdentifier: 'ABCDE12345',
      signerCertPem: chain.signerCertPem,
      signerKeyPem: chain.signerKeyPem,
      wwdrCertPem: chain.wwdrCertPem,
    };
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const refusal = (run: () => unknown): string => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('expected a ConfigError');
  };

  it('generates the development chain once and reuses it', () => {
    const dir = freshDir();
    const first = ensureDevelopmentChain(dir);
    const again = ensureDevelopmentChain(dir);
    expect(again).toEqual(first);
    expect(first.development).toBe(true);
    expect(readdirSync(dir)).toEqual(['dev-certificates']);
    expect(readFileSync(path.join(dir, 'dev-certificates', 'signer-key.pem'), 'utf8')).toContain('PRIVATE KEY');
  });

  it('accepts a matching, valid chain and signs passes with it', async () => {
    const material = checkAppleSigning(apple);
    expect(material).toMatchObject({ passTypeIdentifier: 'pass.com.example.wallet', teamIdentifier: 'ABCDE12345', development: false });
    const issuer = {
      signing: material,
      signer: await createManifestSigner(material),
      organizationName: 'Org',
      description: 'Pass',
      publicBaseUrl: 'https://passes.example.com',
      chainId: 'mainnet',
    };
    const pass = inspectPkpass(
      await buildPkpass(
        {
          serialNumber: '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10',
          publicKey: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
          walletType: 'Generic',
          claimedAt: new Date(),
        },
        issuer,
      ),
    );
    expect(pass.opensslVerify().ok).toBe(true);
    expect(pass.passJson).toMatchObject({ passTypeIdentifier: 'pass.com.example.wallet', teamIdentifier: 'ABCDE12345' });
  });

  it('decrypts an encrypted key once with APPLE_SIGNER_KEY_PASSPHRASE, and names the variable when it cannot', () => {
    const encrypted = createPrivateKey(chain.signerKeyPem)
      .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse' })
      .toString();
    const material = checkAppleSigning({ ...apple, signerKeyPem: encrypted, signerKeyPassphrase: 'correct horse' });
    expect(material.signerKeyPem).toContain('-----BEGIN PRIVATE KEY-----');
    expect(refusal(() => checkAppleSigning({ ...apple, signerKeyPem: encrypted, signerKeyPassphrase: 'wrong' }))).toBe(
      'APPLE_SIGNER_KEY: cannot be read with APPLE_SIGNER_KEY_PASSPHRASE',
    );
    expect(refusal(() => checkAppleSigning({ ...apple, signerKeyPem: encrypted }))).toBe(
      'APPLE_SIGNER_KEY: cannot be read (if it is encrypted, set APPLE_SIGNER_KEY_PASSPHRASE)',
    );
  });

  it('refuses a key that does not belong to the certificate', () => {
    const { privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    expect(refusal(() => checkAppleSigning({ ...apple, signerKeyPem: privateKey }))).toBe(
      'APPLE_SIGNER_KEY: does not belong to the certificate in APPLE_SIGNER_CERT',
    );
  });

  it('refuses an expired certificate, saying when it expired', () => {
    const in2100 = new Date('2100-01-01T00:00:00Z');
    expect(refusal(() => checkAppleSigning(apple, in2100))).toMatch(/^APPLE_SIGNER_CERT: expired on \d{4}-\d\d-\d\dT/);
  });

  it('refuses a certificate that is not valid yet', () => {
    expect(refusal(() => checkAppleSigning(apple, new Date('2000-01-01T00:00:00Z')))).toMatch(/^APPLE_SIGNER_CERT: is not valid before /);
  });

  it('refuses a WWDR certificate that did not issue the signer', () => {
    const other = ensureDevelopmentChain(freshDir());
    expect(refusal(() => checkAppleSigning({ ...apple, wwdrCertPem: other.wwdrCertPem }))).toMatch(/^APPLE_WWDR_CERT: did not issue APPLE_SIGNER_CERT/);
  });

  it('refuses text that is not a certificate', () => {
    expect(refusal(() => checkAppleSigning({ ...apple, signerCertPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' }))).toBe(
      'APPLE_SIGNER_CERT: is not a PEM certificate',
    );
  });

  it('reads the pass type id and team id a certificate was made for from its subject (UID, OU)', () => {
    expect(passTypeOfCertificate(parseCertificate(chain.signerCertPem, 'APPLE_SIGNER_CERT'))).toEqual({
      passTypeIdentifier: chain.passTypeIdentifier,
      teamIdentifier: chain.teamIdentifier,
    });
    expect(passTypeOfCertificate(parseCertificate(chain.wwdrCertPem, 'APPLE_WWDR_CERT'))).toEqual({ passTypeIdentifier: undefined, teamIdentifier: undefined });
  });

  it('says whether a WWDR certificate issued the signer (the doctor tests cover a same-name impostor)', () => {
    const signer = parseCertificate(chain.signerCertPem, 'APPLE_SIGNER_CERT');
    expect(issuance(signer, parseCertificate(chain.wwdrCertPem, 'APPLE_WWDR_CERT'))).toBe('issued');
    expect(issuance(signer, signer)).toBe('other name');
    const other = ensureDevelopmentChain(freshDir());
    expect(issuance(signer, parseCertificate(other.wwdrCertPem, 'APPLE_WWDR_CERT'))).not.toBe('issued');
  });

  it('dates a certificate: not yet valid, valid, expired', () => {
    const signer = parseCertificate(chain.signerCertPem, 'APPLE_SIGNER_CERT');
    expect(validityAt(signer, new Date('2000-01-01T00:00:00Z'))).toBe('not yet valid');
    expect(validityAt(signer, new Date())).toBe('valid');
    expect(validityAt(signer, new Date(signer.validTo))).toBe('expired');
  });

  it('reads the signer key only with the right passphrase', () => {
    const encrypted = createPrivateKey(chain.signerKeyPem)
      .export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'correct horse' })
      .toString();
    expect(readSignerKey({ signerKeyPem: encrypted, signerKeyPassphrase: 'correct horse' })?.asymmetricKeyType).toBe('rsa');
    expect(readSignerKey({ signerKeyPem: encrypted, signerKeyPassphrase: 'wrong' })).toBeUndefined();
    expect(readSignerKey({ signerKeyPem: 'not a key' })).toBeUndefined();
  });
});
