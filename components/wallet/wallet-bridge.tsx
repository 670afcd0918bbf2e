'use client';
import { type WalletError, WalletReadyState } from '@solana/wallet-adapter-base';
// The wallet stack: @solana/wallet-adapter-react's WalletProvider with Wallet Standard detection,
// the legacy adapters, and Mobile Wallet Adapter on Android. It is ~150 KiB of gzip JavaScript
// (web3.js is most of it), so the page loads this module only when the person reaches for a wallet
// (use-claim-flow.ts). It renders nothing: it reports wallets and the connection to the claim flow
// and hands it a WalletHandle to connect and sign.
import { useWallet, type Wallet, WalletProvider } from '@solana/wallet-adapter-react';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import type { InitResult } from '@/lib/client';
import { createLegacyAdapters } from './legacy-adapters';
import { type SignOutcome, signClaimMessage, walletFailureOf } from './sign-claim';
import type { WalletOption } from './types';

export type WalletHandle = {
  /** Connects the named wallet; resolves to its address, rejects with the wallet's failure. */
  connect(name: string): Promise<string>;
  disconnect(): Promise<void>;
  sign(init: InitResult): Promise<SignOutcome>;
};

export type ConnectedWallet = { name: string; publicKey: string };

export type WalletBridgeProps = {
  onWallets(wallets: WalletOption[]): void;
  onConnection(connection: ConnectedWallet | null): void;
  onReady(handle: WalletHandle): void;
};

/** WalletProvider remembers the last wallet here. The page connects only when the person picks one. */
const STORAGE_KEY = 'wallet-pass-claim:wallet';

// Forget a remembered wallet before the provider reads it, so that loading the stack never
// reconnects by itself: connecting is the person's choice.
if (typeof window !== 'undefined') window.localStorage.removeItem(STORAGE_KEY);

type PendingConnect = { name: string; resolve(publicKey: string): void; reject(failure: 'declined' | 'failed'): void };

export default function WalletBridge(props: WalletBridgeProps) {
  const adapters = useMemo(() => createLegacyAdapters(), []);
  const pending = useRef<PendingConnect | null>(null);

  const onError = useCallback((error: WalletError) => {
    const waiting = pending.current;
    if (!waiting) return;
    pending.current = null;
    waiting.reject(walletFailureOf(error, { connected: true }) === 'declined' ? 'declined' : 'failed');
  }, []);

  // autoConnect: with Wallet Standard wallets, selecting a wallet connects it only when it is on.
  return (
    <WalletProvider wallets={adapters} autoConnect localStorageKey={STORAGE_KEY} onError={onError}>
      <Bridge {...props} pending={pending} />
    </WalletProvider>
  );
}

function Bridge({ onWallets, onConnection, onReady, pending }: WalletBridgeProps & { pending: React.RefObject<PendingConnect | null> }) {
  const { wallets, wallet, publicKey, connected, select } = useWallet();
  // The handle is called from the flow long after this render; read the latest values, never a
  // closure from an older one (useWallet's functions are stale inside the click that connects).
  const latest = useRef({ wallets, wallet, select });
  latest.current = { wallets, wallet, select };

  const usable = useMemo(() => wallets.filter(isUsable).map((w) => ({ name: w.adapter.name, icon: w.adapter.icon })), [wallets]);
  useEffect(() => onWallets(usable), [usable, onWallets]);

  const address = connected && publicKey ? publicKey.toBase58() : null;
  const name = wallet?.adapter.name ?? null;
  useEffect(() => {
    const connection = address && name ? { name, publicKey: address } : null;
    const waiting = pending.current;
    if (connection && waiting?.name === connection.name) {
      pending.current = null;
      waiting.resolve(connection.publicKey);
    }
    onConnection(connection);
  }, [address, name, onConnection, pending]);

  useEffect(() => {
    onReady({
      async connect(walletName) {
        const { wallet: selected, wallets: all, select: selectWallet } = latest.current;
        const target = all.find((w) => w.adapter.name === walletName);
        if (!target || !isUsable(target)) throw 'failed';
        const isSelected = selected?.adapter === target.adapter;
        if (isSelected && target.adapter.connected && target.adapter.publicKey) return target.adapter.publicKey.toBase58();
        if (!isSelected && target.adapter.connected) {
          // Connected behind the provider's back (a signature answered after a disconnection
          // reconnects the adapter): the provider would not notice, since connect() returns early.
          await target.adapter.disconnect().catch(() => undefined);
        }
        return new Promise<string>((resolve, reject) => {
          pending.current?.reject('failed');
          pending.current = { name: walletName, resolve, reject };
          if (isSelected) {
            // Already selected, so selecting again would not trigger autoConnect: ask directly.
            // Its failure reaches onError through the adapter's error event.
            target.adapter.connect().catch(() => undefined);
          } else {
            selectWallet(target.adapter.name);
          }
        });
      },
      async disconnect() {
        pending.current = null;
        await latest.current.wallet?.adapter.disconnect().catch(() => undefined);
      },
      async sign(init) {
        const adapter = latest.current.wallet?.adapter;
        if (!adapter) return { ok: false, failure: 'disconnected' };
        return signClaimMessage(adapter, init);
      },
    });
  }, [onReady, pending]);

  return null;
}

/** Installed extensions and loadable wallets (Mobile Wallet Adapter); not "get this wallet" entries. */
function isUsable(wallet: Wallet): boolean {
  return wallet.readyState === WalletReadyState.Installed || wallet.readyState === WalletReadyState.Loadable;
}
