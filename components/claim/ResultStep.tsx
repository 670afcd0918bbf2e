'use client';
// Step 3, Add: the pass links. "Add to Apple Wallet" is the downloadUrl itself (Safari hands a
// .pkpass to Wallet); "Save to Google Wallet" shows only when the service has a link; the QR code
// carries the same downloadUrl to a phone when the claim happened on a computer.
import { type ComponentType, forwardRef, useEffect, useState } from 'react';
import { LinkButton } from '@/components/ui/Button';
import { CopyLink } from '@/components/ui/CopyLink';
import { AppleLogo, CheckIcon, GoogleLogo } from '@/components/ui/icons';
import styles from './claim.module.css';
import type { ClaimState } from './claim-state';
import { Badge, Panel } from './Panel';

type QrCodeComponent = ComponentType<{ value: string; label: string; className?: string }>;

// The QR encoder (~9 KiB gzip) is needed only here. ClaimCard starts loading it while the claim is
// in flight, so it is usually in hand when the result shows; until it is, a blank square of the
// same size holds its place.
let loadedQrCode: QrCodeComponent | null = null;
export const loadQrCode = () =>
  import('@/components/ui/QrCode').then((module) => {
    loadedQrCode = module.default;
    return module.default;
  });

function useQrCode(): QrCodeComponent | null {
  const [component, setComponent] = useState<QrCodeComponent | null>(() => loadedQrCode);
  useEffect(() => {
    if (!component)
      void loadQrCode().then(
        (loaded) => setComponent(() => loaded),
        () => undefined,
      );
  }, [component]);
  return component;
}

type Done = Extract<ClaimState, { kind: 'done' }>;

export const Result = forwardRef<HTMLHeadingElement, { state: Done }>(function Result({ state }, ref) {
  const { downloadUrl, created, googleSaveUrl } = state;
  const QrCode = useQrCode();
  // On Android, Google Wallet is the phone's wallet: its button goes first. (The result only ever
  // renders in the browser, after a claim, so reading the user agent here cannot mismatch the server.)
  const googleFirst = Boolean(googleSaveUrl) && /Android/i.test(navigator.userAgent);
  const apple = (
    <LinkButton key="apple" href={downloadUrl} variant="apple">
      <AppleLogo size={22} />
      Add to Apple Wallet
    </LinkButton>
  );
  const google = googleSaveUrl && (
    <LinkButton key="google" href={googleSaveUrl} variant="google" target="_blank" rel="noopener noreferrer">
      <GoogleLogo size={20} />
      Save to Google Wallet
    </LinkButton>
  );
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
          <div className={styles.walletButtons}>{googleFirst ? [google, apple] : [apple, google]}</div>
          <div className={styles.handoff}>
            {QrCode ? <QrCode value={downloadUrl} label="QR code of your pass link" className={styles.qr} /> : <div className={styles.qr} aria-hidden="true" />}
            <p className={styles.handoffText}>
              <strong>Scan with a phone</strong> Point its camera at this code to add the pass there.
            </p>
          </div>
          <CopyLink value={downloadUrl} label="Your pass link" />
        </div>
      }
      footnote="Keep this link to yourself: anyone who has it can add your pass."
    >
      {created ? 'Add it to your phone’s wallet.' : 'This wallet claimed its pass before. Here it is again.'}
    </Panel>
  );
});
