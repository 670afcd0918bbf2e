// The walletType values a claim may name: the wallet names the Solana wallet adapters report.
// Each has its own pass design (lib/passes/designs.ts). Anything else is a 400, never a silent Generic.
export const WALLET_TYPES = [
  'Generic',
  'Phantom',
  'Solflare',
  'Coinbase Wallet',
  'MathWallet',
  'SafePal',
  'Clover',
  'Coin98',
  'HyperPay',
  'Krystal',
  'ONTO',
  'TokenPocket',
  'Trust',
] as const;

export type WalletType = (typeof WALLET_TYPES)[number];

export const DEFAULT_WALLET_TYPE: WalletType = 'Generic';

export function isWalletType(value: unknown): value is WalletType {
  return typeof value === 'string' && (WALLET_TYPES as readonly string[]).includes(value);
}

/** The walletType a claim names for a wallet app: its own design when it has one, Generic otherwise. */
export function walletTypeForWallet(walletName: string): WalletType {
  return isWalletType(walletName) ? walletName : DEFAULT_WALLET_TYPE;
}
