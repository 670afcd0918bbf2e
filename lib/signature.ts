// Strict Ed25519 verification of a wallet's signature over a message, natively through Node's
// crypto (~80x tweetnacl here), over the raw text or a Solana off-chain message envelope of it.
import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import { getOffchainMessageEncoder, type OffchainMessage, OffchainMessageContentFormat } from '@solana/offchain-messages';

/** The group order of Ed25519: a canonical signature scalar S is below it. */
const L = (1n << 252n) + 27742317777372353535851937790883648493n;
/** The field prime: a canonical point encoding has its y coordinate below it. */
const P = (1n << 255n) - 19n;

/**
 * Encodings of the points of small order (1, 2, 4, 8), plus the two non-canonical encodings with
 * x = 0 and the sign bit set. A key or R of small order lets one signature verify for several
 * messages or keys; libsodium and ed25519-dalek's verify_strict reject the same list.
 */
const SMALL_ORDER_ENCODINGS = new Set([
  '0100000000000000000000000000000000000000000000000000000000000000',
  '0100000000000000000000000000000000000000000000000000000000000080',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f',
  'ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff',
  '0000000000000000000000000000000000000000000000000000000000000000',
  '0000000000000000000000000000000000000000000000000000000000000080',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05',
  '26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a',
  'c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa',
]);

const littleEndian = (bytes: Uint8Array) => BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);

/** S must be reduced mod L. Threat: S + L verifies too, so one signature would have many encodings (malleability). */
export function isCanonicalScalar(s: Uint8Array): boolean {
  return s.length === 32 && littleEndian(s) < L;
}

/**
 * A point (public key, or the signature's R) must be encoded canonically (y < p) and not be of small
 * order. Threats: non-canonical encodings give one key several spellings; small-order keys accept
 * forged signatures for any message.
 */
export function isStrictPoint(point: Uint8Array): boolean {
  if (point.length !== 32) return false;
  if (SMALL_ORDER_ENCODINGS.has(Buffer.from(point).toString('hex'))) return false;
  // y is the point's encoding with its top bit (the sign of x) cleared.
  const y = Uint8Array.from(point, (byte, index) => (index === 31 ? byte & 0x7f : byte));
  return littleEndian(y) < P;
}

function importPublicKey(publicKey: Uint8Array): KeyObject | null {
  try {
    return createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
      format: 'jwk',
    });
  } catch {
    return null; // not a point on the curve
  }
}

/**
 * Ed25519 verification that rejects what the RFC 8032 cofactorless equation alone would let
 * through: wrong lengths, S >= L, non-canonical or small-order public keys and R. OpenSSL
 * (under node:crypto) then checks the equation itself.
 */
export function verifyEd25519Strict(payload: Uint8Array, signature: Uint8Array, publicKey: Uint8Array): boolean {
  const key = strictKey(signature, publicKey);
  return key !== null && verifyWithKey(payload, signature, key);
}

/** The key to verify with, or null when the key or the signature fails a strictness check. */
function strictKey(signature: Uint8Array, publicKey: Uint8Array): KeyObject | null {
  if (signature.length !== 64 || publicKey.length !== 32) return null;
  if (!isStrictPoint(publicKey) || !isStrictPoint(signature.subarray(0, 32)) || !isCanonicalScalar(signature.subarray(32))) {
    return null;
  }
  return importPublicKey(publicKey);
}

function verifyWithKey(payload: Uint8Array, signature: Uint8Array, key: KeyObject): boolean {
  try {
    return verify(null, payload, key, signature);
  } catch {
    return false;
  }
}

/** Which bytes the wallet signed: the raw text, or one of the off-chain envelopes around it. */
export type SignedLayout = 'raw' | 'offchain-legacy' | 'offchain-v0' | 'offchain-v1';

/** "\xffsolana offchain": the signing domain that opens every off-chain message envelope. */
const SIGNING_DOMAIN = Buffer.concat([Buffer.from([0xff]), Buffer.from('solana offchain', 'ascii')]);

/** The off-chain message format byte a signer picks for this body: printable ASCII, short UTF-8, or long UTF-8. */
function contentFormat(body: Uint8Array, shortLimit: number): OffchainMessageContentFormat {
  if (body.every((b) => b >= 0x20 && b <= 0x7e)) return OffchainMessageContentFormat.RESTRICTED_ASCII_1232_BYTES_MAX;
  return body.length <= shortLimit ? OffchainMessageContentFormat.UTF8_1232_BYTES_MAX : OffchainMessageContentFormat.UTF8_65535_BYTES_MAX;
}

/**
 * The legacy envelope of older `solana sign-offchain-message` (solana-sdk offchain_message v0):
 * signing domain, version 0, format, length (u16 LE), body. Anza's library compiles only the
 * later layouts, so this one is written out here; the format rule (ASCII, else UTF-8 up to 1212
 * bytes, else extended) is the CLI's.
 */
export function legacyOffchainEnvelope(body: Uint8Array): Uint8Array | null {
  if (body.length > 0xffff) return null;
  const header = Buffer.alloc(SIGNING_DOMAIN.length + 4);
  SIGNING_DOMAIN.copy(header);
  header[16] = 0;
  header[17] = contentFormat(body, 1212);
  header.writeUInt16LE(body.length, 18);
  return Buffer.concat([header, body]);
}

/** Versions 0 and 1 as @solana/offchain-messages compiles them for one signer, the wallet key. */
export function anzaOffchainEnvelope(text: string, version: 0 | 1, address: string): Uint8Array | null {
  const signer = { address } as OffchainMessage['requiredSignatories'][number];
  const message = (
    version === 0
      ? {
          version: 0,
          // An application domain of 32 zero bytes: what wallets and the Ledger app use for "no app".
          applicationDomain: '11111111111111111111111111111111',
          content: { format: contentFormat(Buffer.from(text, 'utf8'), 1232), text },
          requiredSignatories: [signer],
        }
      : { version: 1, content: text, requiredSignatories: [signer] }
  ) as OffchainMessage;
  try {
    return getOffchainMessageEncoder().encode(message) as Uint8Array;
  } catch {
    return null; // content the layout cannot carry (too long for the chosen format)
  }
}

/**
 * Verifies `signature` by `publicKey` over `text` as a wallet may have signed it: the UTF-8 bytes
 * directly (what signMessage and signIn do), or wrapped in an off-chain message envelope (all a
 * hardware wallet such as Ledger will sign). Returns the layout that verified, or null.
 */
export function verifyWalletSignature(text: string, signature: Uint8Array, publicKey: Uint8Array, address: string): SignedLayout | null {
  const key = strictKey(signature, publicKey);
  if (!key) return null;

  const body = Buffer.from(text, 'utf8');
  if (verifyWithKey(body, signature, key)) return 'raw';
  // Envelopes are built only when the raw text did not verify: the common path pays for one verify.
  const envelopes: [SignedLayout, () => Uint8Array | null][] = [
    ['offchain-v0', () => anzaOffchainEnvelope(text, 0, address)],
    ['offchain-v1', () => anzaOffchainEnvelope(text, 1, address)],
    ['offchain-legacy', () => legacyOffchainEnvelope(body)],
  ];
  for (const [layout, build] of envelopes) {
    const payload = build();
    if (payload && verifyWithKey(payload, signature, key)) return layout;
  }
  return null;
}
