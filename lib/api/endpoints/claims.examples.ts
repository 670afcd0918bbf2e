// The claim endpoints' examples in the reference, made by the service's own code rather than
// typed in: the sign-in message is rendered by the renderer init uses, and the signature really
// verifies for it.
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { DEFAULT_STATEMENT } from '../../config';
import { buildSignInFields, renderSignInMessage } from '../../siws';

const ORIGIN = 'https://passes.example.com';

/** A wallet for examples only: its secret is public (the seed is 1, 2, …, 32). */
const exampleWallet = nacl.sign.keyPair.fromSeed(Uint8Array.from({ length: 32 }, (_, i) => i + 1));
export const EXAMPLE_PUBLIC_KEY = bs58.encode(exampleWallet.publicKey);

const fields = {
  ...buildSignInFields(
    { domain: new URL(ORIGIN).host, uri: ORIGIN, statement: DEFAULT_STATEMENT, chainId: 'mainnet', ttlSeconds: 600 },
    EXAMPLE_PUBLIC_KEY,
    new Date('2026-01-15T09:30:00Z'),
  ),
  nonce: 'Xk3vR9qLm2TzP8wYc4NbHd7s',
};
const message = renderSignInMessage(fields);

export const EXAMPLE_INIT_RESPONSE = { ...fields, message };

export const EXAMPLE_CLAIM_REQUEST = {
  message,
  signature: bs58.encode(nacl.sign.detached(new TextEncoder().encode(message), exampleWallet.secretKey)),
  publicKey: EXAMPLE_PUBLIC_KEY,
  walletType: 'Phantom',
};

export const EXAMPLE_CLAIM_RESPONSE = { downloadUrl: `${ORIGIN}/download?pass=q1F7xWm0bZt3Yc9Lr2Vk8Hs5Jd4Pn6Ag0Ue1To7Ri3E` };
