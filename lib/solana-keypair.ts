// Solana CLI keypair files (what `solana-keygen new` writes to ~/.config/solana/id.json): a JSON
// array of the 64 bytes of an Ed25519 secret key, the 32-byte seed followed by the public key.
import bs58 from 'bs58';
import nacl from 'tweetnacl';

export type SolanaKeypair = { address: string; secretKey: Uint8Array };

export class KeypairError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'KeypairError';
  }
}

/** Parses the text of a keypair file; a KeypairError says what is wrong with it, in one line. */
export function parseSolanaKeypair(text: string): SolanaKeypair {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new KeypairError('not JSON; expected an array of 64 numbers as solana-keygen writes it');
  }
  if (!Array.isArray(value)) throw new KeypairError('not a JSON array; expected an array of 64 numbers as solana-keygen writes it');
  if (value.length !== nacl.sign.secretKeyLength) {
    throw new KeypairError(`holds ${value.length} numbers; a Solana keypair is 64 (a 32-byte seed and the 32-byte public key)`);
  }
  const bad = value.findIndex((byte) => !Number.isInteger(byte) || byte < 0 || byte > 255);
  if (bad !== -1) throw new KeypairError(`item ${bad} is ${JSON.stringify(value[bad])}; every item must be a whole number from 0 to 255`);

  const secretKey = Uint8Array.from(value as number[]);
  // Threat: a corrupted or hand-edited file whose public half is not the seed's would sign for one
  // address while claiming as another; the service would answer only "signature_invalid".
  const derived = nacl.sign.keyPair.fromSeed(secretKey.slice(0, 32)).publicKey;
  if (!derived.every((byte, i) => byte === secretKey[32 + i])) {
    throw new KeypairError('its public half (bytes 32–63) is not the public key of its secret half (bytes 0–31)');
  }
  return { address: bs58.encode(derived), secretKey };
}

/** A new random keypair in the Solana CLI file format. */
export function newSolanaKeypairFile(): { address: string; text: string } {
  const { publicKey, secretKey } = nacl.sign.keyPair();
  return { address: bs58.encode(publicKey), text: `${JSON.stringify(Array.from(secretKey))}\n` };
}

/** Signs the UTF-8 bytes of `message`: base58 of the 64-byte Ed25519 signature. */
export function signMessage(keypair: SolanaKeypair, message: string): string {
  return bs58.encode(nacl.sign.detached(new TextEncoder().encode(message), keypair.secretKey));
}
