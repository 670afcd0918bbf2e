import { createPrivateKey, type KeyObject, randomBytes, sign } from 'node:crypto';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { anzaOffchainEnvelope, isCanonicalScalar, isStrictPoint, legacyOffchainEnvelope, verifyEd25519Strict, verifyWalletSignature } from './signature';

const L = (1n << 252n) + 27742317777372353535851937790883648493n;
const toLittleEndian = (n: bigint) => Buffer.from(n.toString(16).padStart(64, '0'), 'hex').reverse();
const fromLittleEndian = (b: Uint8Array) => BigInt(`0x${Buffer.from(b).reverse().toString('hex')}`);

/** A random corruption: flip one bit of the message, the signature or the key, or swap the key. */
function corrupt(message: Uint8Array, signature: Uint8Array, publicKey: Uint8Array, choice: number) {
  const flip = (bytes: Uint8Array) => {
    const copy = Uint8Array.from(bytes);
    const bit = Math.floor(Math.random() * copy.length * 8);
    copy[bit >> 3]! ^= 1 << (bit & 7);
    return copy;
  };
  switch (choice % 4) {
    case 0:
      return { message: message.length ? flip(message) : Uint8Array.of(1), signature, publicKey };
    case 1:
      return { message, signature: flip(signature), publicKey };
    case 2:
      return { message, signature, publicKey: flip(publicKey) };
    default:
      return { message, signature, publicKey: nacl.sign.keyPair().publicKey };
  }
}

/** Test keys: tweetnacl key pairs, also as Node key objects so that signing the vectors is fast. */
function testKeys(count: number): { publicKey: Uint8Array; signer: KeyObject }[] {
  return Array.from({ length: count }, () => {
    const keys = nacl.sign.keyPair();
    const jwk = {
      kty: 'OKP',
      crv: 'Ed25519',
      d: Buffer.from(keys.secretKey.subarray(0, 32)).toString('base64url'),
      x: Buffer.from(keys.publicKey).toString('base64url'),
    };
    return { publicKey: keys.publicKey, signer: createPrivateKey({ key: jwk, format: 'jwk' }) };
  });
}

describe('verifyEd25519Strict', () => {
  it('agrees with tweetnacl, the reference, on 300 random vectors (half corrupted)', () => {
    const keys = testKeys(25);
    let valid = 0;
    for (let i = 0; i < 300; i++) {
      const key = keys[i % keys.length]!;
      const message = randomBytes(Math.floor(Math.random() * 300));
      const signature = new Uint8Array(sign(null, message, key.signer));
      const vector = i % 2 === 0 ? { message, signature, publicKey: key.publicKey } : corrupt(message, signature, key.publicKey, i >> 1);
      const reference = nacl.sign.detached.verify(vector.message, vector.signature, vector.publicKey);
      expect(verifyEd25519Strict(vector.message, vector.signature, vector.publicKey), `vector ${i}`).toBe(reference);
      if (reference) valid++;
    }
    expect(valid).toBe(150); // every intact vector verifies, and no corrupted one does
  });

  it('rejects a signature whose S is not reduced (S + L), which tweetnacl accepts', () => {
    const keys = nacl.sign.keyPair();
    const message = Buffer.from('malleable?');
    const signature = nacl.sign.detached(message, keys.secretKey);
    const s = fromLittleEndian(signature.subarray(32));
    const malleated = Buffer.concat([signature.subarray(0, 32), toLittleEndian(s + L)]);
    expect(isCanonicalScalar(malleated.subarray(32))).toBe(false);
    expect(nacl.sign.detached.verify(message, malleated, keys.publicKey)).toBe(true);
    expect(verifyEd25519Strict(message, malleated, keys.publicKey)).toBe(false);
    expect(verifyEd25519Strict(message, signature, keys.publicKey)).toBe(true);
  });

  it('rejects small-order public keys, which verify "signatures" for many messages', () => {
    // The identity point as key, and R = identity, S = 0: the equation holds for every message.
    const identity = Buffer.from('0100000000000000000000000000000000000000000000000000000000000000', 'hex');
    const forged = Buffer.concat([identity, Buffer.alloc(32)]);
    expect(isStrictPoint(identity)).toBe(false);
    expect(verifyEd25519Strict(Buffer.from('anything'), forged, identity)).toBe(false);
    const order8 = Buffer.from('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', 'hex');
    expect(isStrictPoint(order8)).toBe(false);
  });

  it('rejects a non-canonical key encoding (y >= p)', () => {
    // y = p + 1 encodes the same point as y = 1 (the identity), spelled differently.
    const p = (1n << 255n) - 19n;
    expect(isStrictPoint(toLittleEndian(p + 1n))).toBe(false);
    expect(isStrictPoint(toLittleEndian(p - 1n))).toBe(false); // y = -1: order 2
    expect(isStrictPoint(nacl.sign.keyPair().publicKey)).toBe(true);
  });

  it('rejects wrong lengths without throwing', () => {
    const keys = nacl.sign.keyPair();
    const signature = nacl.sign.detached(Buffer.from('x'), keys.secretKey);
    expect(verifyEd25519Strict(Buffer.from('x'), signature.subarray(0, 63), keys.publicKey)).toBe(false);
    expect(verifyEd25519Strict(Buffer.from('x'), signature, keys.publicKey.subarray(0, 31))).toBe(false);
  });
});

describe('off-chain message envelopes', () => {
  const text = 'example.com wants you to sign in with your Solana account:\nabc';
  const body = Buffer.from(text);

  it('lays out the legacy envelope: signing domain, version 0, format, u16 LE length, body', () => {
    const envelope = Buffer.from(legacyOffchainEnvelope(body)!);
    expect(envelope.subarray(0, 16).toString('latin1')).toBe('\xffsolana offchain');
    expect(envelope[16]).toBe(0); // version
    expect(envelope[17]).toBe(1); // UTF-8 (the text has a newline, so not restricted ASCII)
    expect(envelope.readUInt16LE(18)).toBe(body.length);
    expect(envelope.subarray(20).equals(body)).toBe(true);
    expect(legacyOffchainEnvelope(Buffer.from('printable ascii'))![17]).toBe(0);
  });

  it('builds v0 with a zero application domain and the wallet as sole signer, and v1 without a length', () => {
    const keys = nacl.sign.keyPair();
    const address = bs58.encode(keys.publicKey);
    const v0 = Buffer.from(anzaOffchainEnvelope(text, 0, address)!);
    expect(v0[16]).toBe(0);
    expect(v0.subarray(17, 49).equals(Buffer.alloc(32))).toBe(true); // application domain
    expect(v0[49]).toBe(1); // format: UTF-8 up to 1232 bytes
    expect(v0[50]).toBe(1); // one signer
    expect(v0.subarray(51, 83).equals(Buffer.from(keys.publicKey))).toBe(true);
    expect(v0.readUInt16LE(83)).toBe(body.length);
    expect(v0.subarray(85).equals(body)).toBe(true);

    const v1 = Buffer.from(anzaOffchainEnvelope(text, 1, address)!);
    expect(v1[16]).toBe(1);
    expect(v1[17]).toBe(1);
    expect(v1.subarray(18, 50).equals(Buffer.from(keys.publicKey))).toBe(true);
    expect(v1.subarray(50).equals(body)).toBe(true);
  });

  it.each(['raw', 'offchain-legacy', 'offchain-v0', 'offchain-v1'] as const)('verifies a %s signature and names the layout', (layout) => {
    const keys = nacl.sign.keyPair();
    const address = bs58.encode(keys.publicKey);
    const payload =
      layout === 'raw'
        ? body
        : layout === 'offchain-legacy'
          ? legacyOffchainEnvelope(body)!
          : anzaOffchainEnvelope(text, layout === 'offchain-v0' ? 0 : 1, address)!;
    const signature = nacl.sign.detached(payload, keys.secretKey);
    expect(verifyWalletSignature(text, signature, keys.publicKey, address)).toBe(layout);
    expect(verifyWalletSignature(`${text}!`, signature, keys.publicKey, address)).toBeNull();
  });

  it('does not accept an envelope naming another signer', () => {
    const keys = nacl.sign.keyPair();
    const other = bs58.encode(nacl.sign.keyPair().publicKey);
    const signature = nacl.sign.detached(anzaOffchainEnvelope(text, 1, other)!, keys.secretKey);
    expect(verifyWalletSignature(text, signature, keys.publicKey, bs58.encode(keys.publicKey))).toBeNull();
  });
});
