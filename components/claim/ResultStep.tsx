'use client';
// Step 3, Add: the pass links. "Add to Apple Wallet" is the downloadUrl itself (Safari hands a
// .pkpass to Wallet); "Save to Google Wallet" shows only when the service has a link; the QR code
// carries the same downloadUrl to a phone when the claim happened on a computer.
import { forwardRef, lazy, Suspense } from 'react';
import { LinkButton } from '@/components/ui/Button';
import { CopyLink } from '@/components/ui/CopyLink';
import { AppleLogo, CheckIcon, GoogleLogo } from '@/components/ui/icons';
import type { ClaimState } from './claim-state';
import { Badge, Panel } from './Panel';
import styles from './claim.module.css';

// The QR encoder is needed only here; the flow starts loading it while the claim is in flight.
export const loadQrCode = () => import('@/components/ui/QrCode');
const QrCode = lazy(loadQrCode);

type Done = Extract<ClaimState, { kind: 'done' }>;

export const Result = forwardRef<HTMLHeadingElement, { state: Done }>(function Result({ state }, ref) {
  const { downloadUrl, created, googleSaveUrl } = state;
  return (
    <Panel
      ref={ref}
      visual={
        <Badge tone="success">
          <CheckIcon size={32} strokeWidth={2.5} />
        </Badge>
      }
      title={created ? 'Your pass is ready' : 'You already have a pass'}
      body={
        <div className={styles.result}>
          <div className={styles.walletButtons}>
            <LinkButton href={downloadUrl} variant="apple">
              <AppleLogo size={22} />
              Add to Apple Wallet
            </LinkButton>
            {googleSaveUrl && (
              <LinkButton href={googleSaveUrl} variant="google" target="_blank" rel="noopener noreferrer">
                <GoogleLogo size={20} />
                Save to Google Wallet
              </LinkButton>
            )}
          </div>
          <div className={styles.handoff}>
            <Suspense fallback={<div className={styles.qr} aria-hidden="true" />}>
              <QrCode value={downloadUrl} label="QR code of your pass link" className={styles.qr} />
            </Suspense>
            <p className={styles.handoffText}>
              <strong>On a computer?</strong> Scan this with your phone’s camera to add the pass there.
            </p>
          </div>
          <CopyLink value={downloadUrl} label="Your pass link" />
        </div>
      }
      footnote="Anyone with this link can add your pass, so share it only with yourself."
    >
      {created ? 'Add it to your phone’s wallet.' : 'This wallet claimed its pass before. Here it is again.'}
    </Panel>
  );
});
