'use client';
// The operator's session: whether this browser holds one (asked once at load), and signing in with
// a wallet through the sign-in view's wallet stack (SignIn.tsx owns it, so a signed-in operator
// never loads it): connect, ask the service
// for an operator sign-in message, one signature, POST it. The session itself is an HttpOnly
// cookie the service sets; the page only knows whose it is and when it ends.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { WalletOption } from '@/components/wallet/types';
import type { WalletHandle, WalletStack } from '@/components/wallet/use-wallet-stack';
import { ClaimApiError } from '@/lib/client';
import { operatorApi, type Session } from '@/lib/client/operator';

export type SignInProblem =
  | 'declined' // the person said no in the wallet
  | 'wallet-failed' // the wallet could not connect or sign
  | 'load-failed' // the wallet stack did not load
  | 'not-operator' // 403: the wallet is not in OPERATOR_WALLETS
  | 'rejected' // 401 on sign-in: the signed message was refused (expired, altered)
  | 'expired' // the session ended (401 on a later request)
  | 'rate-limited'
  | 'unavailable'
  | 'unexpected';

export type SessionState =
  | { kind: 'checking' }
  | { kind: 'signed-out'; problem?: SignInProblem }
  | { kind: 'signing-in'; wallet: WalletOption; step: 'connecting' | 'signing' | 'submitting' }
  | { kind: 'signed-in'; session: Session };

export type OperatorSession = {
  state: SessionState;
  /** Connects `wallet` through the sign-in view's wallet stack, signs, and opens a session. */
  signIn(wallet: WalletOption, stack: WalletStack): void;
  cancel(stack: WalletStack): void;
  signOut(): Promise<void>;
  /** A request answered 401: the session is over (expired, revoked, or the wallet left the list). */
  sessionEnded(): void;
};

export function useOperatorSession(): OperatorSession {
  const [state, setState] = useState<SessionState>({ kind: 'checking' });
  const run = useRef(0);

  useEffect(() => {
    let live = true;
    operatorApi.session().then(
      (session) => live && setState(session ? { kind: 'signed-in', session } : { kind: 'signed-out' }),
      (error: unknown) => live && setState({ kind: 'signed-out', problem: problemOf(error) }),
    );
    return () => {
      live = false;
    };
  }, []);

  const signIn = useCallback(async (wallet: WalletOption, stack: WalletStack) => {
    const current = ++run.current;
    const stillCurrent = () => current === run.current;
    setState({ kind: 'signing-in', wallet, step: 'connecting' });
    let wallets: WalletHandle;
    try {
      wallets = await stack.handle();
    } catch {
      if (stillCurrent()) setState({ kind: 'signed-out', problem: 'load-failed' });
      return;
    }
    try {
      const publicKey = await wallets.connect(wallet.name);
      if (!stillCurrent()) return;
      setState({ kind: 'signing-in', wallet, step: 'signing' });
      const init = await operatorApi.sessionInit(publicKey);
      if (!stillCurrent()) return;
      const outcome = await wallets.sign(init);
      if (!stillCurrent()) return;
      if (!outcome.ok) {
        setState({ kind: 'signed-out', problem: outcome.failure === 'declined' ? 'declined' : 'wallet-failed' });
        return;
      }
      setState({ kind: 'signing-in', wallet, step: 'submitting' });
      const { expiresAt } = await operatorApi.signIn(outcome.signed);
      if (stillCurrent()) setState({ kind: 'signed-in', session: { publicKey: outcome.signed.publicKey, expiresAt } });
    } catch (failure) {
      if (!stillCurrent()) return;
      // A wallet's refusal to connect is a string ('declined' | 'failed'); the API's is an error.
      const problem =
        failure === 'declined'
          ? 'declined'
          : failure === 'failed'
            ? 'wallet-failed'
            : failure instanceof ClaimApiError && failure.status === 401
              ? 'rejected'
              : problemOf(failure);
      setState({ kind: 'signed-out', problem });
    } finally {
      // The session is the cookie now: the wallet's connection is no longer needed.
      void wallets.disconnect();
    }
  }, []);

  const cancel = useCallback((stack: WalletStack) => {
    run.current++;
    setState({ kind: 'signed-out' });
    void stack.loadedHandle()?.disconnect();
  }, []);

  const signOut = useCallback(async () => {
    run.current++;
    try {
      await operatorApi.signOut();
    } catch (error) {
      // Already over on the service's side: signed out all the same.
      if (!(error instanceof ClaimApiError && error.status === 401)) throw error;
    }
    setState({ kind: 'signed-out' });
  }, []);

  const sessionEnded = useCallback(() => {
    run.current++;
    setState({ kind: 'signed-out', problem: 'expired' });
  }, []);

  return { state, signIn: (wallet, stack) => void signIn(wallet, stack), cancel, signOut, sessionEnded };
}

/** What an API failure means for the operator signing in. */
export function problemOf(error: unknown): SignInProblem {
  if (!(error instanceof ClaimApiError)) return 'unexpected';
  if (error.status === 403) return 'not-operator';
  if (error.status === 401) return 'expired';
  if (error.status === 429) return 'rate-limited';
  if (error.code === 'network_error' || error.code === 'service_unavailable') return 'unavailable';
  return 'unexpected';
}
