// The signature file of a .pkpass: a detached CMS (PKCS#7) SignedData over manifest.json, DER,
// with the signer and WWDR certificates embedded and content-type, signing-time and
// message-digest signed attributes (Wallet rejects a signature without a signing time).
//
// Why not passkit-generator's signer: it parses the PEM key and certificates on every pass and
// does RSA and the hashes in node-forge's JavaScript, ~30 ms of synchronous work per pass that
// blocks every other request. Here the key is imported once into Node's WebCrypto, whose RSA runs
// natively on the libuv thread pool, off the event loop.
//
// Why the SignedData is assembled here rather than by pkijs's SignedData: measured on this
// machine, pkijs took ~1.5 ms of JavaScript per signature to encode it (four times the RSA
// itself), while everything in it but the signed attributes and the signature is the same for
// every pass. So pkijs parses the certificates and encodes every constant part once, at start-up,
// and each pass only wraps its two changing parts in DER headers (tag, length). The unit test
// checks the result byte for byte against pkijs's own encoding and with openssl.
import { createHash, createPrivateKey, webcrypto, X509Certificate } from 'node:crypto';
import { availableParallelism } from 'node:os';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import type { SigningMaterial } from './certificates';

export const OID = {
  signedData: '1.2.840.113549.1.7.2',
  data: '1.2.840.113549.1.7.1',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  sha256: '2.16.840.1.101.3.4.2.1',
  rsaEncryption: '1.2.840.113549.1.1.1',
} as const;

/**
 * SHA-256 for the CMS digest and RSA signature (the manifest's file hashes stay SHA-1, as the
 * .pkpass format requires). Wallet accepts it: it is what `openssl smime -sign`, the command in
 * Apple's pass documentation, writes by default since OpenSSL 3.
 */
const DIGEST = { webCrypto: 'SHA-256', node: 'sha256' } as const;

export type ManifestSigner = {
  /** The DER signature file for `manifest`. Same manifest and signing time: same bytes. */
  sign(manifest: Uint8Array, signingTime: Date): Promise<Buffer>;
};

const TAG = { integer: 0x02, octetString: 0x04, sequence: 0x30, set: 0x31, context0: 0xa0 } as const;

/** One DER element: tag, definite length, contents. */
export function der(tag: number, ...contents: Uint8Array[]): Buffer {
  const length = contents.reduce((sum, part) => sum + part.length, 0);
  const lengthBytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) lengthBytes.unshift(rest % 256);
  const header = length < 0x80 ? [tag, length] : [tag, 0x80 | lengthBytes.length, ...lengthBytes];
  return Buffer.concat([Buffer.from(header), ...contents]);
}

/** DER of an asn1js value, encoded by asn1js. */
const encoded = (value: { toBER(sizeOnly?: boolean): ArrayBuffer }) => Buffer.from(value.toBER(false));
const oid = (value: string) => encoded(new asn1js.ObjectIdentifier({ value }));
const algorithm = (algorithmId: string, nullParameters: boolean) =>
  encoded(new pkijs.AlgorithmIdentifier({ algorithmId, ...(nullParameters ? { algorithmParams: new asn1js.Null() } : {}) }).toSchema());

/** Imports the key and encodes every part that is the same for all passes, once. */
export async function createManifestSigner(material: SigningMaterial): Promise<ManifestSigner> {
  const key = await webcrypto.subtle.importKey(
    'pkcs8',
    createPrivateKey(material.signerKeyPem).export({ type: 'pkcs8', format: 'der' }),
    { name: 'RSASSA-PKCS1-v1_5', hash: DIGEST.webCrypto },
    false,
    ['sign'],
  );
  const signerDer = Buffer.from(new X509Certificate(material.signerCertPem).raw);
  const wwdrDer = Buffer.from(new X509Certificate(material.wwdrCertPem).raw);
  const signer = pkijs.Certificate.fromBER(signerDer);

  const version1 = encoded(new asn1js.Integer({ value: 1 }));
  // RFC 5754: SHA-256's parameters are absent. RFC 3370: rsaEncryption's are NULL.
  const digestAlgorithm = algorithm(OID.sha256, false);
  const signatureAlgorithm = algorithm(OID.rsaEncryption, true);
  const issuerAndSerialNumber = encoded(new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }).toSchema());
  const contentTypeAttribute = der(TAG.sequence, oid(OID.contentType), der(TAG.set, oid(OID.data)));
  const signingTimeOid = oid(OID.signingTime);
  const messageDigestOid = oid(OID.messageDigest);
  const signedDataOid = oid(OID.signedData);
  const encapsulatedContentInfo = der(TAG.sequence, oid(OID.data)); // detached: no content
  // A DER SET OF is in the order of its elements' encodings.
  const certificates = der(TAG.context0, ...[signerDer, wwdrDer].sort(Buffer.compare));

  // RSA runs on the thread pool; at most one signature per core but one keeps a core free for
  // the event loop. Measured on 2 cores: unlimited, eight passes in flight pushed the loop's p99
  // delay from ~4 ms to ~18 ms while throughput doubled; limited, it stays at the idle level.
  const limit = concurrencyLimit(Math.max(1, availableParallelism() - 1));
  return {
    async sign(manifest, signingTime) {
      const digest = createHash(DIGEST.node).update(manifest).digest();
      // Listed in DER SET OF order: the three encodings first differ in their length byte
      // (contentType 0x18 < signingTime 0x1c < messageDigest 0x2f).
      const attributes = [
        contentTypeAttribute,
        der(TAG.sequence, signingTimeOid, der(TAG.set, encoded(new asn1js.UTCTime({ valueDate: signingTime })))),
        der(TAG.sequence, messageDigestOid, der(TAG.set, der(TAG.octetString, digest))),
      ];
      // The signature covers the attributes encoded as a SET; the SignerInfo carries the same
      // bytes under the implicit [0] tag.
      const signedAttributes = der(TAG.set, ...attributes);
      const signature = Buffer.from(await limit(() => webcrypto.subtle.sign('RSASSA-PKCS1-v1_5', key, signedAttributes)));
      const signerInfo = der(
        TAG.sequence,
        version1,
        issuerAndSerialNumber,
        digestAlgorithm,
        der(TAG.context0, ...attributes),
        signatureAlgorithm,
        der(TAG.octetString, signature),
      );
      const signedData = der(TAG.sequence, version1, der(TAG.set, digestAlgorithm), encapsulatedContentInfo, certificates, der(TAG.set, signerInfo));
      return der(TAG.sequence, signedDataOid, der(TAG.context0, signedData));
    },
  };
}

/**
 * Runs at most `max` tasks at once; the others wait their turn in order. A finishing task hands
 * its slot straight to the next waiter, so a newcomer can never slip in and exceed `max`.
 */
function concurrencyLimit(max: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running < max) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
