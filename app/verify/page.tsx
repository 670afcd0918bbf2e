import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { verifyPass } from '@/lib/claims';
import { isAppError } from '@/lib/errors';
import { designFor } from '@/lib/passes/designs';
import { shortAddress } from '@/lib/passes/pkpass';
import type { PassCheck } from '@/lib/schemas';
import { getServices } from '@/lib/services';
import styles from './verify.module.css';

export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: 'Pass check',
  // A page per pass holder: nothing for search engines.
  robots: { index: false, follow: false },
};

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The scanner check: a pass's QR code opens this page. Door staff see at a glance whether this
 * service issued the pass, to which wallet, and when. An unknown or malformed serial is a 404
 * rendered by not-found.tsx.
 */
export default async function VerifyPage({ searchParams }: Props) {
  const { serial } = await searchParams;
  const check = await findPass(typeof serial === 'string' ? serial : null);
  if (!check) notFound();

  const design = designFor(check.walletType);
  const claimed = new Date(check.claimedAt);
  return (
    <main className={styles.page}>
      <section className={`${styles.verdict} ${styles.genuine}`} aria-labelledby="verdict">
        <span className={styles.mark} aria-hidden="true">
          ✓
        </span>
        <div>
          <h1 id="verdict" className={styles.title}>
            Genuine pass
          </h1>
          <p className={styles.lead}>Issued by {check.issuer}</p>
        </div>
      </section>

      <div
        className={styles.preview}
        style={{ background: design.background, color: design.foreground }}
        role="img"
        aria-label={`The pass on the phone looks like this: ${design.logoText}, wallet ${shortAddress(check.publicKey)}`}
      >
        <span className={styles.previewName}>{design.logoText}</span>
        <span className={styles.previewLabel} style={{ color: design.label }}>
          Wallet
        </span>
        <span className={styles.previewAddress}>{shortAddress(check.publicKey)}</span>
      </div>

      <dl className={styles.details}>
        <div>
          <dt>Wallet address</dt>
          <dd className={styles.address}>{check.publicKey}</dd>
        </div>
        <div>
          <dt>Wallet app</dt>
          <dd>{design.logoText}</dd>
        </div>
        <div>
          <dt>Claimed</dt>
          <dd>
            <time dateTime={check.claimedAt}>{formatClaimed(claimed)}</time>
          </dd>
        </div>
        <div>
          <dt>Serial number</dt>
          <dd className={styles.serial}>{check.serialNumber}</dd>
        </div>
      </dl>

      <p className={styles.note}>
        This confirms that this service issued the pass to the wallet above. To be sure the guest owns that wallet, ask them
        to show the same address in their wallet app.
      </p>
    </main>
  );
}

/** The pass, or null when this service issued none under this serial (or it is not a serial at all). */
async function findPass(serial: string | null): Promise<PassCheck | null> {
  try {
    return await verifyPass(await getServices(), serial);
  } catch (error) {
    if (isAppError(error) && (error.code === 'pass_not_found' || error.code === 'invalid_request')) return null;
    throw error;
  }
}

function formatClaimed(date: Date): string {
  const text = new Intl.DateTimeFormat('en-GB', {
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
  }).format(date);
  return `${text} UTC`;
}
