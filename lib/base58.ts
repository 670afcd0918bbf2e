// Base58 text to bytes, for input that may not be base58 at all.
import bs58 from 'bs58';

/** The bytes of base58 `value`; null when it is not base58. */
export function decodeBase58(value: string): Uint8Array | null {
  try {
    return bs58.decode(value);
  } catch {
    return null;
  }
}
