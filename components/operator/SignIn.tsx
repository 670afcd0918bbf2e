'use client';
// Signing in: the wallets in this browser (found without the wallet stack), one button each; the
// stack loads when the operator reaches for one (pointer, focus, touch). Connecting and the one
// signature happen in a single action; the card says what the wallet is being asked.
import { forwardRef } from 'react';
import { Button, Spinner } from '@/components/ui/Button';
import { ArrowRightIcon } from '@/components/ui/icons';
import { useWalletStack } from '@/components/wallet/use-wallet-stack';
import styles from './console.module.css';
import type { OperatorSession, SignInProblem } from './use-operator-session';

const PROBLEMS: Record<SignInProblem, string> = {
  declined: 'The wallet did not sign. Nothing was shared. Try again when you are ready.',
  'wallet-failed': 'The wallet could not connect or sign. Unlock it and try again.',
  'load-failed': 'Wallet support could not load. Check the connection and try again.',
  'not-operator': 'This wallet is not an operator of this service. Sign in with an operator wallet.',
  rejected: 'The service did not accept the signature. Try again.',
  expired: 'Your session has ended. Sign in again.',
  'rate-limited': 'Too many attempts. Wait a minute, then try again.',
  unavailable: 'The service cannot be reached. Try again in a moment.',
  unexpected: 'Something went wrong. Try again.',
};

/** The session is the cookie, not the wallet's connection: the console does not follow the wallet. */
const noConnectionEvents = () => undefined;

const STEPS = {
  connecting: (name: string) => `Approve the connection in ${name}.`,
  signing: (name: string) => `Sign the sign-in message in ${name}. It is not a transaction and costs nothing.`,
  submitting: () => 'Checking the signature…',
};

export const SignIn = forwardRef<HTMLHeadingElement, { session: OperatorSession }>(function SignIn({ session }, ref) {
  const { state } = session;
  const stack = useWalletStack(noConnectionEvents);
  const list = stack.walletList;
  const busy = state.kind === 'signing-in' ? state : null;
  const problem = state.kind === 'signed-out' ? state.problem : undefined;
  return (
    <section className={`${styles.card} ${styles.signIn}`} aria-labelledby="sign-in-title" data-state={busy ? busy.step : (problem ?? 'choose')}>
      <h2 id="sign-in-title" ref={ref} tabIndex={-1} className={styles.cardTitle}>
        Sign in
      </h2>
      <p className={styles.muted}>Sign one message with an operator wallet. Only its public address is shared.</p>
      {problem && (
        <p role="alert" className={styles.alert}>
          {PROBLEMS[problem]}
        </p>
      )}
      {busy ? (
        <div className={styles.signingIn} role="status">
          <Spinner />
          <span>{STEPS[busy.step](busy.wallet.name)}</span>
        </div>
      ) : list.status === 'searching' ? (
        <p role="status" className={styles.muted}>
          Looking for wallets…
        </p>
      ) : list.status === 'none' ? (
        <div className={styles.stack}>
          <p className={styles.muted}>No Solana wallet was found in this browser. Install a wallet extension, then look again.</p>
          <Button variant="secondary" onClick={stack.searchAgain}>
            Look again
          </Button>
        </div>
      ) : (
        <ul className={styles.walletList} aria-label="Wallets in this browser">
          {list.wallets.map((wallet) => (
            <li key={wallet.name}>
              <button
                type="button"
                className={styles.walletButton}
                onPointerEnter={stack.prepare}
                onTouchStart={stack.prepare}
                onFocus={stack.prepare}
                onClick={() => session.signIn(wallet, stack)}
              >
                {/* biome-ignore lint/performance/noImgElement: the wallet's data: URI icon, nothing to optimise */}
                <img src={wallet.icon} alt="" width={32} height={32} className={styles.walletIcon} />
                <span className={styles.walletName}>Sign in with {wallet.name}</span>
                <ArrowRightIcon size={18} />
              </button>
            </li>
          ))}
        </ul>
      )}
      {busy && (
        <Button variant="quiet" onClick={() => session.cancel(stack)}>
          Cancel
        </Button>
      )}
      {stack.Bridge && <stack.Bridge {...stack.bridgeProps} />}
    </section>
  );
});
