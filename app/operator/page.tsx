import type { Metadata } from 'next';
import styles from '@/components/operator/console.module.css';
import { OperatorConsole } from '@/components/operator/OperatorConsole';
import { PassIcon } from '@/components/ui/icons';

export const metadata: Metadata = {
  title: 'Operator console',
  description: 'Passes, claims, API keys and webhook deliveries of this wallet pass service.',
  // An operator tool: not for search engines.
  robots: { index: false, follow: false },
};

/** The operator console: a server-rendered shell; everything behind sign-in is the client component. */
export default function OperatorPage() {
  return (
    <main className={styles.main}>
      <header className={styles.header}>
        <span className={styles.brand}>
          <span className={styles.brandMark} aria-hidden="true">
            <PassIcon size={18} />
          </span>
          Wallet Pass
        </span>
        <h1 className={styles.pageTitle}>Operator console</h1>
      </header>
      <noscript>
        <p className={styles.alert}>The console needs JavaScript: it is how this page talks to your wallet and the service.</p>
      </noscript>
      <OperatorConsole />
    </main>
  );
}
