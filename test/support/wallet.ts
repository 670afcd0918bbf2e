// A test wallet: an Ed25519 key held by the test, signing with tweetnacl (the reference
// implementation), raw or inside an off-chain message envelope as a hardware wallet would.
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { anzaOffchainEnvelope, legacyOffchainEnvelope } from '@/lib/signature';

export type Layout = 'raw' | 'offchain-legacy' | 'offchain-v0' | 'offchain-v1';

export class TestWallet {
  readonly keyPair = nacl.sign.keyPair();
  readonly publicKey = bs58.encode(this.keyPair.publicKey);

  signBytes(bytes: Uint8Array): string {
    return bs58.encode(nacl.sign.detached(bytes, this.keyPair.secretKey));
  }

  /** Signs the message text as a wallet would: raw, or wrapped in one of the off-chain envelopes. */
  sign(message: string, layout: Layout = 'raw'): string {
    const body = new TextEncoder().encode(message);
    const payload =
      layout === 'raw'
        ? body
        : layout === 'offchain-legacy'
          ? legacyOffchainEnvelope(body)
          : anzaOffchainEnvelope(message, layout === 'offchain-v0' ? 0 : 1, this.publicKey);
    if (!payload) throw new Error(`cannot build ${layout} envelope`);
    return this.signBytes(payload);
  }
}
