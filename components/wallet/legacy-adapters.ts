// Legacy adapters, only for wallets of the contract's walletType list that may still need one.
// Wallet Standard wallets are found without any adapter, and when a wallet registers through the
// standard the library drops its legacy adapter by name, so listing one here costs nothing at run
// time for wallets that have moved on.
//
// Measured (README "Wallets"): Phantom and Solflare register through the Wallet Standard, so they
// get no adapter (Solflare's would also pull in its web-wallet SDK). The MathWallet and SafePal
// adapters cannot sign messages (they extend BaseSignerWalletAdapter), so they could not claim and
// are left out; those wallets work when they register through the standard. The other eight sign
// messages and depend only on @solana/wallet-adapter-base.
import type { Adapter } from '@solana/wallet-adapter-base';
import { CloverWalletAdapter } from '@solana/wallet-adapter-clover';
import { Coin98WalletAdapter } from '@solana/wallet-adapter-coin98';
import { CoinbaseWalletAdapter } from '@solana/wallet-adapter-coinbase';
import { HyperPayWalletAdapter } from '@solana/wallet-adapter-hyperpay';
import { KrystalWalletAdapter } from '@solana/wallet-adapter-krystal';
import { OntoWalletAdapter } from '@solana/wallet-adapter-onto';
import { TokenPocketWalletAdapter } from '@solana/wallet-adapter-tokenpocket';
import { TrustWalletAdapter } from '@solana/wallet-adapter-trust';

export function createLegacyAdapters(): Adapter[] {
  return [
    new CoinbaseWalletAdapter(),
    new TrustWalletAdapter(),
    new TokenPocketWalletAdapter(),
    new Coin98WalletAdapter(),
    new CloverWalletAdapter(),
    new HyperPayWalletAdapter(),
    new KrystalWalletAdapter(),
    new OntoWalletAdapter(),
  ];
}
