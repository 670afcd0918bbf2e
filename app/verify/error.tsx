'use client';

import styles from './verify.module.css';

/** The check itself failed (the database did not answer): say so rather than guess either way. */
export default function CheckFailed({ reset }: { error: Error; reset: () => void }) {
  return (
    <main className={styles.page}>
      <section className={`${styles.verdict} ${styles.failed}`} aria-labelledby="verdict">
        <span className={styles.mark} aria-hidden="true">
          !
        </span>
        <div>
          <h1 id="verdict" className={styles.title}>
            Cannot check right now
          </h1>
          <p className={styles.lead}>The service could not look this pass up. Nothing is known about it either way.</p>
        </div>
      </section>
      <button type="button" className={styles.retry} onClick={reset}>
        Try again
      </button>
    </main>
  );
}
