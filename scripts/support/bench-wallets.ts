// Wallets for the benchmarks (scripts/bench.ts, scripts/bench-fanout.ts): Ed25519 keys made with
// node:crypto, which makes and signs for tens of thousands in seconds.
import { createPrivateKey, generateKeyPairSync, type JsonWebKey, type KeyObject, sign } from 'node:crypto';
import bs58 from 'bs58';

/** Ed25519 wallets made with node:crypto (tweetnacl would take minutes for 50,000). */
export class Wallets {
  private readonly keys = new Map<string, KeyObject>();
  readonly publicKeys: string[] = [];
  private next = 0;

  /** A wallet never used before. */
  fresh(): string {
    while (this.next >= this.publicKeys.length) this.grow(1000);
    return this.publicKeys[this.next++]!;
  }

  /** Keys for `count` more wallets made now, so that none is made while a phase measures. */
  reserve(count: number): void {
    this.grow(Math.max(0, this.next + count - this.publicKeys.length));
  }

  grow(count: number): void {
    for (let i = 0; i < count; i++) {
      // JWK encodings up front: exporting many generated ed25519 keys later can deadlock Node 20.
      const { publicKey, privateKey } = generateKeyPairSync('ed25519', {
        publicKeyEncoding: { format: 'jwk' },
        privateKeyEncoding: { format: 'jwk' },
      } as never) as unknown as { publicKey: JsonWebKey; privateKey: JsonWebKey };
      const address = bs58.encode(Buffer.from(publicKey.x!, 'base64url'));
      this.keys.set(address, createPrivateKey({ key: privateKey, format: 'jwk' }));
      this.publicKeys.push(address);
    }
  }

  sign(address: string, message: string): string {
    return bs58.encode(sign(null, Buffer.from(message, 'utf8'), this.keys.get(address)!));
  }
}
