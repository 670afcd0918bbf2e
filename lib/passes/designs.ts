// One pass design per walletType: colours, the text beside the logo, and the mark drawn on the
// icon and logo images (scripts/generate-pass-images.ts renders the marks into assets/<slug>/).
// The wallet's name is written out; no third-party logo artwork is used.
import type { WalletType } from '../wallet-types';

export type Mark = 'ring' | 'disc' | 'diamond' | 'hexagon' | 'triangle' | 'square' | 'bars' | 'cross' | 'chevron' | 'dots' | 'arc' | 'star' | 'shield';

export type PassDesign = {
  walletType: WalletType;
  /** Folder name under lib/passes/assets and part of the download filename. */
  slug: string;
  /** Shown beside the logo on the front of the pass. */
  logoText: string;
  /** Hex colours; pass.json wants rgb() strings, see rgb(). */
  background: string;
  foreground: string;
  label: string;
  mark: Mark;
};

export const DESIGNS: Record<WalletType, PassDesign> = {
  Generic: { walletType: 'Generic', slug: 'generic', logoText: 'Solana Wallet', background: '#14151a', foreground: '#ffffff', label: '#14f195', mark: 'ring' },
  Phantom: { walletType: 'Phantom', slug: 'phantom', logoText: 'Phantom', background: '#ab9ff2', foreground: '#1c1533', label: '#3e2d84', mark: 'arc' },
  Solflare: { walletType: 'Solflare', slug: 'solflare', logoText: 'Solflare', background: '#ffef46', foreground: '#1a1a1a', label: '#6b4e00', mark: 'star' },
  'Coinbase Wallet': {
    walletType: 'Coinbase Wallet',
    slug: 'coinbase-wallet',
    logoText: 'Coinbase Wallet',
    background: '#0052ff',
    foreground: '#ffffff',
    label: '#e8eeff',
    mark: 'square',
  },
  MathWallet: {
    walletType: 'MathWallet',
    slug: 'mathwallet',
    logoText: 'MathWallet',
    background: '#000000',
    foreground: '#ffffff',
    label: '#c9c9c9',
    mark: 'cross',
  },
  SafePal: { walletType: 'SafePal', slug: 'safepal', logoText: 'SafePal', background: '#4a21ef', foreground: '#ffffff', label: '#dcd3ff', mark: 'shield' },
  Clover: { walletType: 'Clover', slug: 'clover', logoText: 'Clover', background: '#1b5e3f', foreground: '#ffffff', label: '#b8f0d2', mark: 'dots' },
  Coin98: { walletType: 'Coin98', slug: 'coin98', logoText: 'Coin98', background: '#d9b432', foreground: '#1a1a1a', label: '#4d3b00', mark: 'disc' },
  HyperPay: { walletType: 'HyperPay', slug: 'hyperpay', logoText: 'HyperPay', background: '#14163a', foreground: '#ffffff', label: '#ffb547', mark: 'chevron' },
  Krystal: { walletType: 'Krystal', slug: 'krystal', logoText: 'Krystal', background: '#1de9b6', foreground: '#0b1f1a', label: '#0b4d3d', mark: 'diamond' },
  ONTO: { walletType: 'ONTO', slug: 'onto', logoText: 'ONTO', background: '#2442c8', foreground: '#ffffff', label: '#cfd8ff', mark: 'hexagon' },
  TokenPocket: {
    walletType: 'TokenPocket',
    slug: 'tokenpocket',
    logoText: 'TokenPocket',
    background: '#1760d3',
    foreground: '#ffffff',
    label: '#e6efff',
    mark: 'bars',
  },
  Trust: { walletType: 'Trust', slug: 'trust', logoText: 'Trust Wallet', background: '#0500ff', foreground: '#ffffff', label: '#d4d2ff', mark: 'triangle' },
};

export function designFor(walletType: WalletType): PassDesign {
  return DESIGNS[walletType];
}

/** "#1a2b3c" -> "rgb(26, 43, 60)", the colour syntax pass.json uses. */
export function rgb(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}

/** WCAG 2 contrast ratio between two hex colours (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const luminance = (hex: string) => {
    const n = Number.parseInt(hex.slice(1), 16);
    const [r, g, bl] = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}
