// Pass signing material: the configured Apple certificates, checked at start-up, or a development
// chain (a self-signed CA standing in for Apple's WWDR, and a Pass Type ID signer it issued)
// generated once into DATA_DIR and reused. Each rule the material must meet is a small exported
// function: start-up stops at the first broken one, `npm run doctor` (lib/cli/doctor/apple.ts)
// reports on each.
import { createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import forge from 'node-forge';
import * as pkijs from 'pkijs';
import { type AppleSigning, ConfigError, DEV_PASS_TYPE_ID, DEV_TEAM_ID } from '../config';
import { ensurePrivateDir } from '../db/data-dir';

export type SigningMaterial = {
  passTypeIdentifier: string;
  teamIdentifier: string;
  signerCertPem: string;
  /** The signer key, decrypted once here, as unencrypted PKCS#8 PEM. */
  signerKeyPem: string;
  wwdrCertPem: string;
  /** True for the generated chain: Wallet on a phone will not install such passes. */
  development: boolean;
};

export function loadSigningMaterial(apple: AppleSigning | undefined, dataDir: string): SigningMaterial {
  return apple ? checkAppleSigning(apple) : ensureDevelopmentChain(dataDir);
}

/** A mistake in the Apple material stops start-up here, not at the first download. */
export function checkAppleSigning(apple: AppleSigning, now = new Date()): SigningMaterial {
  const signer = parseCertificate(apple.signerCertPem, 'APPLE_SIGNER_CERT');
  const wwdr = parseCertificate(apple.wwdrCertPem, 'APPLE_WWDR_CERT');
  const key = readSignerKey(apple);
  if (!key) {
    throw new ConfigError(
      'APPLE_SIGNER_KEY',
      apple.signerKeyPassphrase === undefined
        ? 'cannot be read (if it is encrypted, set APPLE_SIGNER_KEY_PASSPHRASE)'
        : 'cannot be read with APPLE_SIGNER_KEY_PASSPHRASE',
    );
  }
  if (!keyBelongsToCertificate(key, signer)) {
    throw new ConfigError('APPLE_SIGNER_KEY', 'does not belong to the certificate in APPLE_SIGNER_CERT');
  }
  for (const [variable, cert] of [
    ['APPLE_SIGNER_CERT', signer],
    ['APPLE_WWDR_CERT', wwdr],
  ] as const) {
    const validity = validityAt(cert, now);
    if (validity === 'expired') throw new ConfigError(variable, `expired on ${new Date(cert.validTo).toISOString()}`);
    if (validity === 'not yet valid') throw new ConfigError(variable, `is not valid before ${new Date(cert.validFrom).toISOString()}`);
  }
  if (issuance(signer, wwdr) !== 'issued') {
    throw new ConfigError('APPLE_WWDR_CERT', 'did not issue APPLE_SIGNER_CERT (Pass Type ID certificates need the WWDR G4 intermediate)');
  }
  return {
    passTypeIdentifier: apple.passTypeIdentifier,
    teamIdentifier: apple.teamIdentifier,
    signerCertPem: signer.toString(),
    signerKeyPem: key.export({ format: 'pem', type: 'pkcs8' }).toString(),
    wwdrCertPem: wwdr.toString(),
    development: false,
  };
}

/** The certificate in `pem`, or a ConfigError naming `variable`. */
export function parseCertificate(pem: string, variable: string): X509Certificate {
  try {
    return new X509Certificate(pem);
  } catch {
    throw new ConfigError(variable, 'is not a PEM certificate');
  }
}

/** The signer key, decrypted with APPLE_SIGNER_KEY_PASSPHRASE when one is set; undefined when it cannot be read. */
export function readSignerKey(apple: Pick<AppleSigning, 'signerKeyPem' | 'signerKeyPassphrase'>): KeyObject | undefined {
  try {
    return createPrivateKey({ key: apple.signerKeyPem, format: 'pem', passphrase: apple.signerKeyPassphrase });
  } catch {
    return undefined;
  }
}

/** Whether `key` is the private half of the certificate's public key (a key made for another CSR is not). */
export function keyBelongsToCertificate(key: KeyObject, certificate: X509Certificate): boolean {
  return certificate.checkPrivateKey(key);
}

export type Validity = 'valid' | 'not yet valid' | 'expired';

export function validityAt(certificate: X509Certificate, now: Date): Validity {
  if (new Date(certificate.validTo) <= now) return 'expired';
  if (new Date(certificate.validFrom) > now) return 'not yet valid';
  return 'valid';
}

/**
 * Whether `wwdr` issued `signer`: 'other name' when the signer names another issuer, 'other key'
 * when the names match but the WWDR key did not sign it. checkIssued compares names (and key
 * identifiers, when present); only the signature proves it.
 */
export function issuance(signer: X509Certificate, wwdr: X509Certificate): 'issued' | 'other name' | 'other key' {
  if (!signer.checkIssued(wwdr)) return 'other name';
  if (!signer.verify(wwdr.publicKey)) return 'other key';
  return 'issued';
}

const UID_OID = '0.9.2342.19200300.100.1.1';
const OU_OID = '2.5.4.11';

/**
 * The pass type id and team id an Apple Pass Type ID certificate was made for: its subject names
 * them as UID=<pass type id> and OU=<team id>. Wallet refuses a pass whose pass.json says otherwise.
 */
export function passTypeOfCertificate(certificate: X509Certificate): { passTypeIdentifier?: string; teamIdentifier?: string } {
  const subject = pkijs.Certificate.fromBER(certificate.raw).subject.typesAndValues;
  const attribute = (oid: string): string | undefined => {
    const value: unknown = subject.find((entry) => entry.type === oid)?.value.valueBlock.value;
    return typeof value === 'string' ? value : undefined;
  };
  return { passTypeIdentifier: attribute(UID_OID), teamIdentifier: attribute(OU_OID) };
}

const DEV_FILES = { wwdr: 'wwdr-ca.pem', cert: 'signer-cert.pem', key: 'signer-key.pem' } as const;

/** Loads the development chain from DATA_DIR, generating it the first time. */
export function ensureDevelopmentChain(dataDir: string): SigningMaterial {
  const dir = path.join(dataDir, 'dev-certificates');
  ensurePrivateDir(dataDir);
  if (!existsSync(path.join(dir, DEV_FILES.key))) {
    // Written to a temporary directory and renamed into place, so a crash or a second process
    // starting at the same moment never leaves half a chain.
    const staging = `${dir}.${process.pid}.${randomBytes(4).toString('hex')}`;
    mkdirSync(staging, { mode: 0o700 });
    const chain = generateDevelopmentChain();
    writeFileSync(path.join(staging, DEV_FILES.wwdr), chain.wwdrCertPem);
    writeFileSync(path.join(staging, DEV_FILES.cert), chain.signerCertPem);
    writeFileSync(path.join(staging, DEV_FILES.key), chain.signerKeyPem, { mode: 0o600 });
    try {
      renameSync(staging, dir);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process won; use its chain
    }
  }
  return {
    passTypeIdentifier: DEV_PASS_TYPE_ID,
    teamIdentifier: DEV_TEAM_ID,
    wwdrCertPem: readFileSync(path.join(dir, DEV_FILES.wwdr), 'utf8'),
    signerCertPem: readFileSync(path.join(dir, DEV_FILES.cert), 'utf8'),
    signerKeyPem: readFileSync(path.join(dir, DEV_FILES.key), 'utf8'),
    development: true,
  };
}

/** An RSA 2048 key from Node's native generator; node-forge only writes the X.509 structures. */
export function rsaKeyPair() {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { format: 'pem', type: 'pkcs8' },
    publicKeyEncoding: { format: 'pem', type: 'spki' },
  });
  const key = forge.pki.privateKeyFromPem(privateKey) as forge.pki.rsa.PrivateKey;
  return { pem: privateKey, key, publicKey: forge.pki.setRsaPublicKey(key.n, key.e) };
}

function generateDevelopmentChain(): Pick<SigningMaterial, 'wwdrCertPem' | 'signerCertPem' | 'signerKeyPem'> {
  const now = new Date();
  const years = (n: number) => new Date(now.getFullYear() + n, now.getMonth(), now.getDate());

  const caKeys = rsaKeyPair();
  const ca = forge.pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = `01${randomBytes(8).toString('hex')}`;
  ca.validity.notBefore = new Date(now.getTime() - 60_000);
  ca.validity.notAfter = years(20);
  const caName = [
    { name: 'commonName', value: 'Development WWDR CA (not Apple)' },
    { name: 'organizationName', value: 'wallet-pass-claim development' },
  ];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  ca.sign(caKeys.key, forge.md.sha256.create());

  const signerKeys = rsaKeyPair();
  const signer = forge.pki.createCertificate();
  signer.publicKey = signerKeys.publicKey;
  signer.serialNumber = `02${randomBytes(8).toString('hex')}`;
  signer.validity.notBefore = new Date(now.getTime() - 60_000);
  signer.validity.notAfter = years(10);
  signer.setSubject([
    { type: '0.9.2342.19200300.100.1.1', value: DEV_PASS_TYPE_ID }, // UID: Apple puts the pass type id here
    { name: 'commonName', value: `Pass Type ID: ${DEV_PASS_TYPE_ID}` },
    { name: 'organizationalUnitName', value: DEV_TEAM_ID },
    { name: 'organizationName', value: 'wallet-pass-claim development' },
  ]);
  signer.setIssuer(caName);
  signer.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, critical: true },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  signer.sign(caKeys.key, forge.md.sha256.create());

  return {
    wwdrCertPem: forge.pki.certificateToPem(ca),
    signerCertPem: forge.pki.certificateToPem(signer),
    signerKeyPem: signerKeys.pem,
  };
}
