'use client';
// Wallet Standard wallets installed in this browser, found at first paint without the wallet stack:
// the registry of @wallet-standard/app is about 1 KiB, the stack about 150. The list uses the same
// test as @solana/wallet-adapter-react (isWalletAdapterCompatibleStandardWallet), so every wallet
// shown here is one the stack will offer, and adds that the wallet can sign a message.
import { isWalletAdapterCompatibleStandardWallet } from '@solana/wallet-adapter-base';
import { getWallets } from '@wallet-standard/app';
import { useEffect, useState } from 'react';
import type { WalletOption } from './types';

type StandardWallet = ReturnType<ReturnType<typeof getWallets>['get']>[number];

function canClaim(wallet: StandardWallet): boolean {
  return (
    isWalletAdapterCompatibleStandardWallet(wallet) &&
    ('solana:signIn' in wallet.features || 'solana:signMessage' in wallet.features) &&
    wallet.chains.some((chain) => chain.startsWith('solana:'))
  );
}

function claimable(wallets: readonly StandardWallet[]): WalletOption[] {
  return wallets.filter(canClaim).map((wallet) => ({ name: wallet.name, icon: wallet.icon }));
}

/** The claimable Wallet Standard wallets, kept up to date as wallets register (null before hydration). */
export function useStandardWallets(): WalletOption[] | null {
  const [wallets, setWallets] = useState<WalletOption[] | null>(null);
  useEffect(() => {
    const registry = getWallets();
    const update = () => setWallets(claimable(registry.get()));
    update();
    const offs = [registry.on('register', update), registry.on('unregister', update)];
    return () => {
      for (const off of offs) off();
    };
  }, []);
  return wallets;
}
