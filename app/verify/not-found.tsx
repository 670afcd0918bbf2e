import styles from './verify.module.css';

/** An unknown or malformed serial: this service never issued such a pass. Served with 404. */
export default function NotIssuedHere() {
  return (
    <main className={styles.page}>
      <title>Not issued here</title>
      <section className={`${styles.verdict} ${styles.unknown}`} aria-labelledby="verdict">
        <span className={styles.mark} aria-hidden="true">
          ✕
        </span>
        <div>
          <h1 id="verdict" className={styles.title}>
            Not issued here
          </h1>
          <p className={styles.lead}>This service has no pass with this serial number.</p>
        </div>
      </section>
      <p className={styles.note}>
        Do not accept this pass as one of ours. If the guest insists, ask them to open the pass again from the link they
        received when they claimed it.
      </p>
    </main>
  );
}
