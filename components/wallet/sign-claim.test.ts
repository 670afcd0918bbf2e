import type { Adapter } from '@solana/wallet-adapter-base';
import { WalletSignMessageError } from '@solana/wallet-adapter-base';
import { createSignInMessageText } from '@solana/wallet-standard-util';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import type { InitResult } from '@/lib/client';
import { signClaimMessage, walletFailureOf } from './sign-claim';

const keys = nacl.sign.keyPair();
const address = bs58.encode(keys.publicKey);
const init: InitResult = {
  domain: 'passes.example.com',
  nonce: 'k3Jd8sLq0PzXw2VbN7cR',
  issuedAt: '2026-11-21T10:00:00.000Z',
  expirationTime: '2026-11-21T10:10:00.000Z',
  message: 'the exact text the service issued',
  address,
  statement: 'Sign this message to prove you own this wallet.',
  uri: 'https://passes.example.com',
  version: '1',
  chainId: 'mainnet',
};

/** A connected adapter with the given signing methods. */
function adapter(methods: Record<string, unknown>, connected = true): Adapter {
  return { name: 'Test', connected, publicKey: { toBase58: () => address }, ...methods } as unknown as Adapter;
}

describe('signClaimMessage', () => {
  it('hands a signIn wallet a program’s Resources line, so that its text is the one issued', async () => {
    let received: Record<string, unknown> | undefined;
    const wallet = adapter({
      signIn: async (input: Record<string, string> & { resources?: string[] }) => {
        received = input;
        const text = new TextEncoder().encode(createSignInMessageText({ ...input, domain: input.domain!, address: input.address! }));
        return { account: { address }, signedMessage: text, signature: nacl.sign.detached(text, keys.secretKey) };
      },
    });
    const outcome = await signClaimMessage(wallet, { ...init, resources: ['https://passes.example.com/p/summit-2026'] });
    expect(received?.resources).toEqual(['https://passes.example.com/p/summit-2026']);
    expect(outcome.ok && outcome.signed.message).toContain('Resources:\n- https://passes.example.com/p/summit-2026');
  });

  it('hands a signIn wallet the issued fields and submits the text it signed', async () => {
    let received: Record<string, unknown> | undefined;
    const wallet = adapter({
      signIn: async (input: Record<string, string>) => {
        received = input;
        const text = new TextEncoder().encode(createSignInMessageText({ ...input, domain: input.domain!, address: input.address! }));
        return { account: { address }, signedMessage: text, signature: nacl.sign.detached(text, keys.secretKey) };
      },
      signMessage: async () => {
        throw new Error('signMessage must not be used when signIn is offered');
      },
    });
    const outcome = await signClaimMessage(wallet, init);
    expect(received).toEqual({
      domain: init.domain,
      address,
      statement: init.statement,
      uri: init.uri,
      version: '1',
      chainId: 'mainnet',
      nonce: init.nonce,
      issuedAt: init.issuedAt,
      expirationTime: init.expirationTime,
    });
    expect(outcome.ok && outcome.method).toBe('signIn');
    if (!outcome.ok) return;
    expect(outcome.signed.message).toContain(`Nonce: ${init.nonce}`);
    expect(outcome.signed.publicKey).toBe(address);
    const valid = nacl.sign.detached.verify(new TextEncoder().encode(outcome.signed.message), bs58.decode(outcome.signed.signature), keys.publicKey);
    expect(valid).toBe(true);
  });

  it('asks a signMessage wallet to sign the issued text exactly', async () => {
    let signed: Uint8Array | undefined;
    const wallet = adapter({
      signMessage: async (message: Uint8Array) => {
        signed = message;
        return nacl.sign.detached(message, keys.secretKey);
      },
    });
    const outcome = await signClaimMessage(wallet, init);
    expect(new TextDecoder().decode(signed)).toBe(init.message);
    expect(outcome).toMatchObject({ ok: true, method: 'signMessage', signed: { message: init.message, publicKey: address } });
  });

  it('reports a signIn by another account than the connected one', async () => {
    const other = bs58.encode(nacl.sign.keyPair().publicKey);
    const wallet = adapter({ signIn: async () => ({ account: { address: other }, signedMessage: new Uint8Array([1]), signature: new Uint8Array(64) }) });
    expect(await signClaimMessage(wallet, init)).toEqual({ ok: false, failure: 'account-changed' });
  });

  it('reports a wallet that cannot sign, and one that is not connected', async () => {
    expect(await signClaimMessage(adapter({}), init)).toEqual({ ok: false, failure: 'cannot-sign' });
    expect(await signClaimMessage(adapter({ signMessage: async () => new Uint8Array(64) }, false), init)).toEqual({ ok: false, failure: 'disconnected' });
  });
});

describe('walletFailureOf: what a wallet error means', () => {
  const connected = { connected: true };

  it('recognises a refusal by its 4001 code or its words, inside the adapter’s wrapper', () => {
    expect(walletFailureOf(new WalletSignMessageError('x', Object.assign(new Error('x'), { code: 4001 })), connected)).toBe('declined');
    expect(walletFailureOf(new WalletSignMessageError('User rejected the request.'), connected)).toBe('declined');
    expect(walletFailureOf(new Error('Approval Denied'), connected)).toBe('declined');
  });

  it('calls anything else a wallet failure, and any error after a disconnection a disconnection', () => {
    expect(walletFailureOf(new WalletSignMessageError('Internal JSON-RPC error'), connected)).toBe('failed');
    expect(walletFailureOf(new Error('User rejected the request.'), { connected: false })).toBe('disconnected');
  });
});
