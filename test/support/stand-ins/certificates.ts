// Small X.509 helpers for the stand-ins and their tests: a certificate authority, and server or
// client certificates it issues. Keys come from Node's native RSA generator (node-forge's own is
// slow pure JavaScript); node-forge only writes the certificate structures, as
// lib/passes/certificates.ts does for the development pass-signing chain.
import { randomBytes } from 'node:crypto';
import forge from 'node-forge';
import { rsaKeyPair } from '../../../lib/passes/certificates';

export type CertificateAuthority = {
  certPem: string;
  keyPem: string;
  /** Kept for issuing: the parsed certificate and key. */
  cert: forge.pki.Certificate;
  key: forge.pki.rsa.PrivateKey;
};

export type IssuedCertificate = { certPem: string; keyPem: string };

/** A subject attribute: a node-forge short name (`CN`, `O`, `OU`, `C`) or a dotted OID (`UID`'s is 0.9.2342.19200300.100.1.1). */
export type SubjectAttribute = { shortName: string; value: string } | { type: string; value: string };

/** The OID of `UID`, where Apple puts the pass type identifier of a Pass Type ID certificate. */
export const UID_OID = '0.9.2342.19200300.100.1.1';

// A leading 01 keeps the DER integer positive whatever the random bytes are.
const serialNumber = () => `01${randomBytes(15).toString('hex')}`;

/** Valid from a minute ago (clock skew between processes) for `days` days. */
function setValidity(cert: forge.pki.Certificate, days: number): void {
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60_000);
  cert.validity.notAfter = new Date(now + days * 86_400_000);
}

export function createCertificateAuthority(commonName: string): CertificateAuthority {
  const keys = rsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  setValidity(cert, 30);
  const name = [{ shortName: 'CN', value: commonName }];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.key, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.pem, cert, key: keys.key };
}

export type IssueOptions = {
  subject: SubjectAttribute[];
  /** `server` gets serverAuth and the names below; `client` gets clientAuth (TLS client authentication, as APNs asks of a Pass Type ID certificate). */
  purpose: 'server' | 'client';
  dnsNames?: string[];
  ipAddresses?: string[];
};

export function issueCertificate(ca: CertificateAuthority, options: IssueOptions): IssuedCertificate {
  const keys = rsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  setValidity(cert, 30);
  cert.setSubject(options.subject);
  cert.setIssuer(ca.cert.subject.attributes);
  const altNames = [
    ...(options.dnsNames ?? []).map((value) => ({ type: 2, value })), // dNSName
    ...(options.ipAddresses ?? []).map((ip) => ({ type: 7, ip })), // iPAddress
  ];
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: options.purpose === 'server', clientAuth: options.purpose === 'client' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.cert.generateSubjectKeyIdentifier().getBytes() },
    ...(altNames.length > 0 ? [{ name: 'subjectAltName', altNames }] : []),
  ]);
  cert.sign(ca.key, forge.md.sha256.create());
  return { certPem: forge.pki.certificateToPem(cert), keyPem: keys.pem };
}

/** A client certificate shaped like Apple's Pass Type ID certificate: UID and CN name the pass type id, OU the team. */
export function issuePassTypeCertificate(ca: CertificateAuthority, passTypeIdentifier: string, teamIdentifier = 'TEAMID1234'): IssuedCertificate {
  return issueCertificate(ca, {
    purpose: 'client',
    subject: [
      { type: UID_OID, value: passTypeIdentifier },
      { shortName: 'CN', value: `Pass Type ID: ${passTypeIdentifier}` },
      { shortName: 'OU', value: teamIdentifier },
      { shortName: 'O', value: 'Stand-in test issuer' },
      { shortName: 'C', value: 'US' },
    ],
  });
}
