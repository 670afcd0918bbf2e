'use client';
// The claim flow: the wallets and the on-demand wallet stack (components/wallet/use-wallet-stack.ts),
// connecting, and the claim itself (init -> one signature -> claim). Every failure lands in a state
// from claim-state.ts with a way forward; nothing here shows the server's or wallet's own words.
import { type ComponentType, useCallback, useRef, useState } from 'react';
import type { SignedClaim } from '@/components/wallet/sign-claim';
import { useWalletStack, type WalletList } from '@/components/wallet/use-wallet-stack';
import type { ConnectedWallet, WalletBridgeProps, WalletHandle } from '@/components/wallet/wallet-bridge';
import { ClaimApiError, createClaimClient, type InitResult } from '@/lib/client';
import { walletTypeForWallet } from '@/lib/wallet-types';
import { type Account, type ClaimState, canSignAgain, problemFromApiError, problemFromWalletFailure, type WalletOption } from './claim-state';

const client = createClaimClient();

/** The Google Wallet link is a nicety: the result does not wait longer than this for it. */
const GOOGLE_LINK_WAIT_MS = 2500;

export type { WalletList };

export type ClaimFlow = {
  state: ClaimState;
  walletList: WalletList;
  /** Start loading the wallet stack (pointer over, focus on, or touch of a wallet button). */
  prepare(): void;
  connect(wallet: WalletOption): void;
  claim(): void;
  /** Back out of a connection or signature request the person no longer wants to wait for. */
  cancel(): void;
  /** Disconnect and show the wallet list again. */
  chooseAnotherWallet(): void;
  /** Look for wallets again (after installing one). */
  searchAgain(): void;
  /** The wallet stack, rendered invisibly once loaded. */
  Bridge: ComponentType<WalletBridgeProps> | null;
  bridgeProps: WalletBridgeProps;
};

/** The claim flow of one program's page: `program` is its slug (none: the default program, as `/` claims it). */
export function useClaimFlow(program?: string): ClaimFlow {
  const [state, setState] = useState<ClaimState>({ kind: 'idle' });
  const stateRef = useRef(state);
  stateRef.current = state;

  /** Each user action starts a new run; an answer that arrives for an older run is ignored. */
  const run = useRef(0);
  /**
   * What a retry can pick up without a new request to the wallet: an issued message that never
   * left the page (declined, wallet error), or a signed one the service did not process (429, no
   * answer). Either only for the account it was made for, and while it has time left.
   */
  const resumable = useRef<{ init: InitResult; signed: SignedClaim | null } | null>(null);

  // --- What the wallet stack reports --------------------------------------------------------------
  const onConnection = useCallback((connection: ConnectedWallet | null) => {
    const from = stateRef.current;
    if (from.kind !== 'ready' && from.kind !== 'working' && from.kind !== 'problem') return;
    if (!connection || connection.name !== from.account.wallet.name) {
      // The wallet went away mid-way (locked, disconnected from its own UI, extension reloaded).
      run.current++;
      setState({ kind: 'disconnected', wallet: from.account.wallet });
    } else if (connection.publicKey !== from.account.publicKey && from.kind !== 'working') {
      // The person switched accounts in the wallet: claim for the one now connected.
      resumable.current = null;
      const account: Account = { ...from.account, publicKey: connection.publicKey };
      setState({ kind: 'ready', account });
    }
  }, []);

  // --- The wallet stack, loaded once, on demand ---------------------------------------------------
  const stack = useWalletStack(onConnection);
  const { walletList, prepare, searchAgain, Bridge, bridgeProps, handle: walletHandle, loadedHandle } = stack;

  // --- Connecting -------------------------------------------------------------------------------
  const connect = useCallback(
    async (wallet: WalletOption) => {
      const current = ++run.current;
      setState({ kind: 'connecting', wallet });
      let wallets: WalletHandle;
      try {
        wallets = await walletHandle();
      } catch {
        if (current === run.current) setState({ kind: 'connect-failed', wallet, reason: 'load-failed' });
        return;
      }
      try {
        const publicKey = await wallets.connect(wallet.name);
        if (current === run.current) setState({ kind: 'ready', account: { wallet, publicKey } });
      } catch (failure) {
        if (current === run.current) setState({ kind: 'connect-failed', wallet, reason: failure === 'declined' ? 'declined' : 'failed' });
      }
    },
    [walletHandle],
  );

  // --- Claiming -----------------------------------------------------------------------------------
  const claim = useCallback(async () => {
    const from = stateRef.current;
    if (from.kind !== 'ready' && from.kind !== 'problem') return;
    const account = from.account;
    const current = ++run.current;
    const stillCurrent = () => current === run.current;
    const working = (step: 'preparing' | 'signing' | 'submitting', renewed = false) => stillCurrent() && setState({ kind: 'working', account, step, renewed });
    const fail = (error: unknown) => stillCurrent() && setState({ kind: 'problem', account, problem: problemFromApiError(error, Date.now()) });

    const wallets = loadedHandle();
    if (!wallets) return; // ready implies a connected wallet, so the stack is loaded

    const resume = resumable.current;
    resumable.current = null;
    let init: InitResult;
    let signed: SignedClaim | null = null;
    if (resume && canSignAgain(resume.init, account.publicKey, Date.now())) {
      ({ init, signed } = resume);
    } else {
      working('preparing');
      try {
        init = await client.init(account.publicKey, program);
      } catch (error) {
        return fail(error);
      }
    }

    // An expired message is renewed once without asking the person anything but the signature.
    for (let renewed = false; ; renewed = true) {
      if (!signed) {
        working('signing', renewed);
        const outcome = await wallets.sign(init);
        if (!stillCurrent()) return;
        if (!outcome.ok) {
          resumable.current = { init, signed: null }; // nothing left the page: sign this one again
          if (outcome.failure === 'disconnected') return setState({ kind: 'disconnected', wallet: account.wallet });
          return setState({ kind: 'problem', account, problem: problemFromWalletFailure(outcome.failure) });
        }
        signed = outcome.signed;
      }
      working('submitting');
      try {
        const result = await client.claim({ ...signed, walletType: walletTypeForWallet(account.wallet.name), ...(program ? { program } : {}) });
        const googleSaveUrl = await googleLink(result.downloadUrl);
        if (stillCurrent()) {
          setState({ kind: 'done', account, downloadUrl: result.downloadUrl, created: result.created, googleSaveUrl });
        }
        return;
      } catch (error) {
        const code = error instanceof ClaimApiError ? error.code : null;
        if (code === 'rate_limited' || code === 'network_error' || code === 'service_unavailable') {
          resumable.current = { init, signed }; // not processed (or not known to be): send it again
        }
        if (code !== 'message_expired' || renewed) return fail(error);
        try {
          init = await client.init(account.publicKey, program);
          signed = null;
        } catch (initError) {
          return fail(initError);
        }
      }
    }
  }, [loadedHandle, program]);

  const cancel = useCallback(() => {
    run.current++;
    const from = stateRef.current;
    if (from.kind === 'connecting') setState({ kind: 'idle' });
    else if (from.kind === 'working') setState({ kind: 'ready', account: from.account });
  }, []);

  const chooseAnotherWallet = useCallback(() => {
    run.current++;
    resumable.current = null;
    setState({ kind: 'idle' });
    void loadedHandle()?.disconnect();
  }, [loadedHandle]);

  return {
    state,
    walletList,
    prepare,
    connect: (wallet) => void connect(wallet),
    claim: () => void claim(),
    cancel,
    chooseAnotherWallet,
    searchAgain,
    Bridge,
    bridgeProps,
  };
}

/** The Google Wallet link of the pass, or null when the service has none, fails, or is slow. */
async function googleLink(downloadUrl: string): Promise<string | null> {
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), GOOGLE_LINK_WAIT_MS));
  return Promise.race([client.googleSaveUrl(downloadUrl).catch(() => null), timeout]);
}
