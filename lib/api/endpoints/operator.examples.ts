// Examples of the operator API's reference, made by the service's own code like ./claims.examples.ts.
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { OPERATOR_STATEMENT } from '../../operators/sessions';
import { buildSignInFields, renderSignInMessage } from '../../siws';

const ORIGIN = 'https://passes.example.com';
/** A wallet for examples only: its secret is public (the seed is 32, 31, …, 1). */
const exampleOperator = nacl.sign.keyPair.fromSeed(Uint8Array.from({ length: 32 }, (_, i) => 32 - i));
const publicKey = bs58.encode(exampleOperator.publicKey);

const fields = {
  ...buildSignInFields(
    { domain: new URL(ORIGIN).host, uri: ORIGIN, statement: OPERATOR_STATEMENT, chainId: 'mainnet', ttlSeconds: 600 },
    publicKey,
    new Date('2026-01-15T09:30:00Z'),
  ),
  nonce: 'Op7vR9qLm2TzP8wYc4NbHd7s',
};
const message = renderSignInMessage(fields);

export const EXAMPLE_OPERATOR_INIT_RESPONSE = { ...fields, message };

export const EXAMPLE_SESSION_REQUEST = {
  message,
  signature: bs58.encode(nacl.sign.detached(new TextEncoder().encode(message), exampleOperator.secretKey)),
  publicKey,
};

export const EXAMPLE_SESSION_RESPONSE = { token: 'wpcs_3q2Jx0yH1m8Zt5Lr7Vk9Hs4Jd2Pn6Ag0Ue1To7Ri3Ew', expiresAt: '2026-01-15T21:30:05.000Z' };

export const EXAMPLE_PASS = {
  serialNumber: '3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10',
  publicKey: '9C6hybhQ6Aycep9jaUnP6uL9ZYvDjUp1aSkFWPUFJtpj',
  program: 'default',
  walletType: 'Phantom',
  claimedAt: '2026-01-15T09:31:12.000Z',
  status: 'voided',
  voidReason: 'ticket refunded',
  expirationDate: null as string | null,
  relevantDate: null as string | null,
  updatedAt: '2026-01-16T14:02:51.120Z',
  devices: 1,
};

export const EXAMPLE_API_KEY = {
  id: 'key_b3Jk8Qm1Zt5L',
  name: 'nightly export',
  scope: 'operator',
  createdBy: publicKey,
  createdAt: '2026-01-15T09:40:00.000Z',
  lastUsedAt: null,
};
