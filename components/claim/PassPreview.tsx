// A picture of the pass being claimed, in the design of the connected wallet (lib/passes/designs.ts),
// with the connected address once there is one. Shown beside the card on wide screens; decorative,
// since the card says everything in words.
import { shortAddress } from '@/lib/address';
import { designFor } from '@/lib/passes/designs';
import { walletTypeForWallet } from '@/lib/wallet-types';
import type { ClaimState } from './claim-state';
import styles from './PassPreview.module.css';

export function PassPreview({ state }: { state: ClaimState }) {
  const account = 'account' in state ? state.account : null;
  // The design of the wallet being connected or connected; the Generic one before any is chosen.
  const wallet = account?.wallet ?? ('wallet' in state ? state.wallet : null);
  const design = designFor(walletTypeForWallet(wallet?.name ?? 'Generic'));
  const added = state.kind === 'done';
  return (
    <div className={`${styles.stage} ${added ? styles.added : ''}`} aria-hidden="true">
      <div
        className={styles.pass}
        // Colours of the wallet's pass design. Set through the DOM (CSSOM) after hydration, which
        // the style-src policy allows; the server-rendered pass uses the stylesheet's defaults.
        ref={(node) => {
          if (!node) return;
          node.style.setProperty('--pass-bg', design.background);
          node.style.setProperty('--pass-fg', design.foreground);
          node.style.setProperty('--pass-label', design.label);
        }}
      >
        <div className={styles.top}>
          <span className={styles.mark} />
          <span className={styles.logoText}>{design.logoText}</span>
          <span className={styles.kind}>Wallet pass</span>
        </div>
        <div className={styles.field}>
          <span className={styles.label}>Wallet</span>
          <span className={`${styles.primary} ${account ? '' : styles.placeholder}`}>{account ? shortAddress(account.publicKey) : 'Your address'}</span>
        </div>
        <div className={styles.bottom}>
          <div className={styles.field}>
            <span className={styles.label}>Wallet app</span>
            <span className={styles.secondary}>{design.logoText}</span>
          </div>
          <span className={styles.code} />
        </div>
      </div>
    </div>
  );
}
