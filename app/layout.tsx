import type { Metadata, Viewport } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import './globals.css';

export const metadata: Metadata = {
  title: 'Claim your wallet pass',
  description: 'Sign one message to prove you own a Solana wallet and add its pass to Apple Wallet or Google Wallet.',
};

export const viewport: Viewport = {
  width: 'device-width',
  initialScale: 1,
  themeColor: [
    { media: '(prefers-color-scheme: light)', color: '#f4f3f9' },
    { media: '(prefers-color-scheme: dark)', color: '#0e0d14' },
  ],
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request, so that each response carries a fresh CSP nonce (proxy.ts);
  // a prerendered page would have none and its scripts would be refused.
  await connection();
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
