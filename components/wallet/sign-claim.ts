// Asking the connected wallet to sign the issued message: Sign In With Solana with the issued fields
// when the wallet has `solana:signIn` (it shows a proper sign-in screen), otherwise `signMessage` of
// the exact text. Part of the lazily loaded wallet stack.
import type { Adapter, MessageSignerWalletAdapterProps, SignInMessageSignerWalletAdapterProps } from '@solana/wallet-adapter-base';
import bs58 from 'bs58';
import type { InitResult } from '@/lib/client';
import { errorChain } from '@/lib/errors';
import type { WalletFailure } from './types';

export type SignedClaim = { message: string; signature: string; publicKey: string };
export type SignOutcome = { ok: true; signed: SignedClaim; method: 'signIn' | 'signMessage' } | { ok: false; failure: WalletFailure };

type SignInCapable = Adapter & Pick<SignInMessageSignerWalletAdapterProps, 'signIn'>;
type MessageCapable = Adapter & Pick<MessageSignerWalletAdapterProps, 'signMessage'>;

const canSignIn = (adapter: Adapter): adapter is SignInCapable => typeof (adapter as Partial<SignInCapable>).signIn === 'function';
const canSignMessage = (adapter: Adapter): adapter is MessageCapable => typeof (adapter as Partial<MessageCapable>).signMessage === 'function';

export async function signClaimMessage(adapter: Adapter, init: InitResult): Promise<SignOutcome> {
  if (!adapter.connected || !adapter.publicKey) return { ok: false, failure: 'disconnected' };
  try {
    if (canSignIn(adapter)) {
      const output = await adapter.signIn({
        domain: init.domain,
        address: init.address,
        statement: init.statement,
        uri: init.uri,
        version: init.version,
        chainId: init.chainId,
        nonce: init.nonce,
        issuedAt: init.issuedAt,
        expirationTime: init.expirationTime,
        // A program's message names its claim page: the wallet's text must carry it as issued.
        ...(init.resources?.length ? { resources: init.resources } : {}),
      });
      // The wallet built the text from the fields; the service compares them with what it issued.
      const signed = {
        message: new TextDecoder('utf-8', { fatal: true }).decode(output.signedMessage),
        signature: bs58.encode(output.signature),
        publicKey: output.account.address,
      };
      return signed.publicKey === init.address ? { ok: true, signed, method: 'signIn' } : { ok: false, failure: 'account-changed' };
    }
    if (canSignMessage(adapter)) {
      const signature = await adapter.signMessage(new TextEncoder().encode(init.message));
      const publicKey = adapter.publicKey.toBase58();
      if (publicKey !== init.address) return { ok: false, failure: 'account-changed' };
      return { ok: true, signed: { message: init.message, signature: bs58.encode(signature), publicKey }, method: 'signMessage' };
    }
    return { ok: false, failure: 'cannot-sign' };
  } catch (error) {
    return { ok: false, failure: walletFailureOf(error, adapter) };
  }
}

/** Words wallets use when the person says no (Phantom, Solflare, Backpack and the legacy adapters). */
const REJECTION_WORDS = /reject|denied|declin|cancel|abort|user closed/i;
/** The EIP-1193 "user rejected the request" code, which most Solana wallets reuse. */
const USER_REJECTED = 4001;

/** Classifies what a wallet threw, looking through the adapter's wrapping (errorChain). */
export function walletFailureOf(error: unknown, adapter: Pick<Adapter, 'connected'>): WalletFailure {
  if (!adapter.connected) return 'disconnected';
  for (const { name, code, message } of errorChain(error, 4)) {
    if (name === 'WalletNotConnectedError' || name === 'WalletDisconnectedError') return 'disconnected';
    if (code === USER_REJECTED || REJECTION_WORDS.test(message)) return 'declined';
  }
  return 'failed';
}
