'use client';
// The wallet stack as a page uses it: which wallets there are at first paint (the ~1 KiB Wallet
// Standard registry), and the stack itself (wallet-bridge.tsx, ~150 KiB gzip) loaded once, when
// the person reaches for a wallet. The claim page and the operator console share it, so neither
// pays for the stack before it is needed.
import { type ComponentType, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStandardWallets } from './detected-wallets';
import type { WalletOption } from './types';
import type { ConnectedWallet, WalletBridgeProps, WalletHandle } from './wallet-bridge';

export type { ConnectedWallet, WalletHandle };

export type WalletList = { status: 'searching' } | { status: 'found'; wallets: WalletOption[] } | { status: 'none' };

export type WalletStack = {
  walletList: WalletList;
  /** Start loading the wallet stack (pointer over, focus on, or touch of a wallet button). */
  prepare(): void;
  /** The stack's handle, loading the stack first if need be; rejects when it cannot load. */
  handle(): Promise<WalletHandle>;
  /** The handle if the stack has loaded, else null. */
  loadedHandle(): WalletHandle | null;
  /** Look for wallets again (after installing one). */
  searchAgain(): void;
  /** The wallet stack, to render (invisibly) once loaded. */
  Bridge: ComponentType<WalletBridgeProps> | null;
  bridgeProps: WalletBridgeProps;
};

/** `onConnection` hears every change of the connected wallet; keep it stable (useCallback). */
export function useWalletStack(onConnection: (connection: ConnectedWallet | null) => void): WalletStack {
  const [Bridge, setBridge] = useState<ComponentType<WalletBridgeProps> | null>(null);
  const [bridgeFailed, setBridgeFailed] = useState(false);
  const bridgeLoad = useRef<Promise<void> | null>(null);
  const handleRef = useRef<WalletHandle | null>(null);
  const handleWaiters = useRef<((handle: WalletHandle) => void)[]>([]);

  const loadBridge = useCallback((): Promise<void> => {
    if (!bridgeLoad.current) {
      setBridgeFailed(false);
      bridgeLoad.current = import('./wallet-bridge').then(
        (module) => setBridge(() => module.default),
        (error: unknown) => {
          bridgeLoad.current = null; // a later attempt may succeed (offline for a moment)
          setBridgeFailed(true);
          throw error;
        },
      );
    }
    return bridgeLoad.current;
  }, []);

  const handle = useCallback(async (): Promise<WalletHandle> => {
    await loadBridge();
    if (handleRef.current) return handleRef.current;
    return new Promise((resolve) => handleWaiters.current.push(resolve));
  }, [loadBridge]);

  const prepare = useCallback(() => void loadBridge().catch(() => undefined), [loadBridge]);

  const standardWallets = useStandardWallets();
  const [stackWallets, setStackWallets] = useState<WalletOption[] | null>(null);
  // Without a Wallet Standard wallet, only the stack can tell whether a legacy or mobile wallet is
  // there, so it loads at once; with one, it waits until the person reaches for a wallet.
  const noStandardWallet = standardWallets !== null && standardWallets.length === 0;
  useEffect(() => {
    if (noStandardWallet) prepare();
  }, [noStandardWallet, prepare]);

  const walletList = useMemo((): WalletList => {
    const wallets = stackWallets ?? standardWallets;
    if (wallets && wallets.length > 0) return { status: 'found', wallets };
    if (standardWallets === null) return { status: 'searching' };
    if (stackWallets === null && !bridgeFailed) return { status: 'searching' };
    return { status: 'none' };
  }, [stackWallets, standardWallets, bridgeFailed]);

  // Extensions inject themselves when a page loads, so after installing one a reload finds it.
  const searchAgain = useCallback(() => (bridgeFailed ? prepare() : window.location.reload()), [bridgeFailed, prepare]);

  const bridgeProps = useMemo(
    (): WalletBridgeProps => ({
      onWallets: setStackWallets,
      onConnection,
      onReady(ready) {
        handleRef.current = ready;
        for (const resolve of handleWaiters.current.splice(0)) resolve(ready);
      },
    }),
    [onConnection],
  );

  const loadedHandle = useCallback(() => handleRef.current, []);

  return { walletList, prepare, handle, loadedHandle, searchAgain, Bridge, bridgeProps };
}
