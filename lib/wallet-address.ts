// A Solana address as the configuration takes it: base58 text of exactly 32 bytes (a wallet, a
// mint or a collection: off-curve program addresses are valid too, so no curve check here).
import bs58 from 'bs58';

const BASE58_32 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export function isSolanaAddress(text: string): boolean {
  if (!BASE58_32.test(text)) return false;
  try {
    return bs58.decode(text).length === 32;
  } catch {
    return false;
  }
}
