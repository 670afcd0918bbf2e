import { ClaimExperience } from '@/components/claim/ClaimCard';
import { PassIcon } from '@/components/ui/icons';
import styles from './page.module.css';

/** The claim page: a server-rendered shell; the flow itself is the client component ClaimExperience. */
export default function ClaimPage() {
  return (
    <main className={styles.main}>
      <div className={styles.brand}>
        <span className={styles.brandMark} aria-hidden="true">
          <PassIcon size={20} />
        </span>
        Wallet Pass
      </div>
      <ClaimExperience
        intro={
          <>
            <h1 className={styles.title}>Claim your wallet pass</h1>
            <p className={styles.lede}>Sign one message to prove you own this wallet. No transaction, no fee.</p>
            <noscript>
              <p className={styles.noscript}>Claiming needs JavaScript: it is how this page talks to your wallet.</p>
            </noscript>
          </>
        }
      />
    </main>
  );
}
