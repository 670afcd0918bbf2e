import type { Metadata } from 'next';
import { DoorPage } from '@/components/scan/DoorPage';
import styles from '@/components/scan/scan.module.css';

export const metadata: Metadata = {
  title: 'Door check-in',
  description: 'Scan wallet passes at the door: sign in, choose the program, point the camera at each pass.',
  // A staff tool: not for search engines.
  robots: { index: false, follow: false },
};

/** The door page: a server-rendered shell; signing in, the program and the camera are the client component. */
export default function ScanPage() {
  return (
    <main className={styles.main}>
      <header className={styles.header}>
        <h1 className={styles.pageTitle}>Door check-in</h1>
      </header>
      <noscript>
        <p>The door page needs JavaScript: it reads the camera and talks to the service.</p>
      </noscript>
      <DoorPage />
    </main>
  );
}
