// The signature file, checked three ways: byte for byte against pkijs encoding the whole
// SignedData itself, by openssl verifying it, and by what openssl reads out of it.
import { spawnSync } from 'node:child_process';
import { createHash, sign, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevelopmentChain, type SigningMaterial } from './certificates';
import { createManifestSigner, der, type ManifestSigner, OID } from './manifest-signer';

const MANIFEST = Buffer.from(JSON.stringify({ 'pass.json': 'da39a3ee5e6b4b0d3255bfef95601890afd80709' }));
const SIGNED = new Date('2026-03-14T15:10:00Z');

/** The same SignedData, every part encoded by pkijs, signed by Node's crypto.sign. */
function referenceSignature(material: SigningMaterial, manifest: Buffer, signingTime: Date): Buffer {
  const certificates = [material.signerCertPem, material.wwdrCertPem]
    .map((pem) => Buffer.from(new X509Certificate(pem).raw))
    .sort(Buffer.compare)
    .map((bytes) => pkijs.Certificate.fromBER(bytes));
  const signer = pkijs.Certificate.fromBER(new X509Certificate(material.signerCertPem).raw);
  const signedAttrs = new pkijs.SignedAndUnsignedAttributes({
    type: 0,
    attributes: [
      new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.data })] }),
      new pkijs.Attribute({ type: OID.signingTime, values: [new asn1js.UTCTime({ valueDate: signingTime })] }),
      new pkijs.Attribute({ type: OID.messageDigest, values: [new asn1js.OctetString({ valueHex: createHash('sha256').update(manifest).digest() })] }),
    ],
  });
  const toSign = Buffer.from(signedAttrs.toSchema().toBER(false));
  toSign[0] = 0x31; // signed as a SET, carried as [0]
  const digestAlgorithm = new pkijs.AlgorithmIdentifier({ algorithmId: OID.sha256 });
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [digestAlgorithm],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID.data }),
    certificates,
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
        digestAlgorithm,
        signedAttrs,
        signatureAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID.rsaEncryption, algorithmParams: new asn1js.Null() }),
        signature: new asn1js.OctetString({ valueHex: sign('sha256', toSign, material.signerKeyPem) }),
      }),
    ],
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
  return Buffer.from(contentInfo.toSchema().toBER(false));
}

describe('the manifest signature', () => {
  let dataDir: string;
  let material: SigningMaterial;
  let signer: ManifestSigner;
  let signature: Buffer;

  const openssl = (...args: string[]) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wpc-sig-'));
    try {
      writeFileSync(path.join(dir, 'signature'), signature);
      writeFileSync(path.join(dir, 'manifest.json'), MANIFEST);
      const result = spawnSync(
        'openssl',
        args.map((a) => a.replace(/^@/, `${dir}/`)),
      );
      return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-signer-'));
    material = ensureDevelopmentChain(dataDir);
    signer = await createManifestSigner(material);
    signature = await signer.sign(MANIFEST, SIGNED);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is byte for byte the SignedData pkijs encodes from the same parts', () => {
    expect(signature.toString('hex')).toBe(referenceSignature(material, MANIFEST, SIGNED).toString('hex'));
  });

  it('verifies with openssl cms -verify as a detached signature of manifest.json', () => {
    const result = openssl('cms', '-verify', '-binary', '-inform', 'DER', '-in', '@signature', '-content', '@manifest.json', '-noverify', '-out', '/dev/null');
    expect(result.output).toContain('Verification successful');
    expect(result.ok).toBe(true);
  });

  it('does not verify against a different manifest', async () => {
    const other = await signer.sign(Buffer.from('{"pass.json":"0000"}'), SIGNED);
    const saved = signature;
    signature = other;
    try {
      expect(
        openssl('cms', '-verify', '-binary', '-inform', 'DER', '-in', '@signature', '-content', '@manifest.json', '-noverify', '-out', '/dev/null').ok,
      ).toBe(false);
    } finally {
      signature = saved;
    }
  });

  it('carries content type, signing time and SHA-256 message digest, both certificates, and no content', () => {
    const printed = openssl('cms', '-cmsout', '-print', '-inform', 'DER', '-in', '@signature').output;
    expect(printed).toContain('contentType: pkcs7-signedData');
    expect(printed).toMatch(/eContent: <ABSENT>/);
    expect(printed).toMatch(/object: signingTime[\s\S]*?UTCTIME:Mar 14 15:10:00 2026 GMT/);
    expect(printed).toMatch(/object: contentType[\s\S]*?OBJECT:pkcs7-data/);
    expect(printed).toMatch(/object: messageDigest/);
    expect(printed).toMatch(/digestAlgorithm:\s+algorithm: sha256/);
    expect(printed).toContain('subject: UID=pass.dev.wallet-pass-claim');
    expect(printed).toContain('subject: CN=Development WWDR CA (not Apple)');
  });

  it('gives the same bytes for the same manifest and signing time, and a new signature for another time', async () => {
    expect((await signer.sign(MANIFEST, SIGNED)).equals(signature)).toBe(true);
    expect((await signer.sign(MANIFEST, new Date('2026-03-14T15:10:01Z'))).equals(signature)).toBe(false);
  });

  it('signs many manifests at once without mixing them up', async () => {
    const manifests = Array.from({ length: 24 }, (_, i) => Buffer.from(`{"pass.json":"${i}"}`));
    const signatures = await Promise.all(manifests.map((m) => signer.sign(m, SIGNED)));
    const sequential = [];
    for (const m of manifests) sequential.push(await signer.sign(m, SIGNED));
    expect(signatures.map((s) => s.toString('hex'))).toEqual(sequential.map((s) => s.toString('hex')));
  });

  it('encodes DER lengths in short and long form', () => {
    expect(der(0x04, Buffer.alloc(3)).subarray(0, 2)).toEqual(Buffer.from([0x04, 0x03]));
    expect(der(0x04, Buffer.alloc(0x80)).subarray(0, 3)).toEqual(Buffer.from([0x04, 0x81, 0x80]));
    expect(der(0x30, Buffer.alloc(0x1234)).subarray(0, 4)).toEqual(Buffer.from([0x30, 0x82, 0x12, 0x34]));
    expect(der(0x30, Buffer.alloc(0x10000)).subarray(0, 5)).toEqual(Buffer.from([0x30, 0x83, 0x01, 0x00, 0x00]));
  });
});
