'use client';
// Step 2, Sign: ready to claim, waiting on the wallet or the service, and every way a claim can
// stop (each with its way forward). The words are ours; the wallet's and server's never show.
import { forwardRef, useEffect, useState } from 'react';
import { Button, Spinner } from '@/components/ui/Button';
import { AlertIcon, ClockIcon, CloudOffIcon, ShieldIcon } from '@/components/ui/icons';
import { shortAddress } from '@/lib/address';
import styles from './claim.module.css';
import { type Account, type ClaimState, formatWait, type Problem, secondsUntil } from './claim-state';
import { localTime } from './local-time';
import { Badge, Panel, WalletAvatar } from './Panel';
import type { ClaimFlow } from './use-claim-flow';

type Props = { flow: ClaimFlow };

/** The connected wallet and address, with a way to switch. */
function AccountChip({ account, flow }: { account: Account; flow: ClaimFlow }) {
  return (
    <div className={styles.account}>
      {/* biome-ignore lint/performance/noImgElement: the wallet's data: URI icon, nothing to optimise */}
      <img src={account.wallet.icon} alt="" width={28} height={28} className={styles.accountIcon} />
      <span className={styles.accountText}>
        <span className={styles.accountName}>{account.wallet.name}</span>
        <span className={styles.accountAddress} title={account.publicKey}>
          <span className="visually-hidden">address </span>
          {shortAddress(account.publicKey)}
        </span>
      </span>
      <Button variant="quiet" className={styles.accountSwitch} onClick={flow.chooseAnotherWallet}>
        Change<span className="visually-hidden"> wallet</span>
      </Button>
    </div>
  );
}

const FREE_TO_SIGN = (
  <>
    <ShieldIcon size={16} className={styles.footnoteIcon} />
    Signing is free. It cannot move funds or approve a transaction.
  </>
);

/** Ready to claim; also shown, with the button busy, while the message is being issued (a blink). */
export const Ready = forwardRef<HTMLHeadingElement, Props & { account: Account; preparing?: boolean }>(function Ready(
  { flow, account, preparing = false },
  ref,
) {
  return (
    <Panel
      ref={ref}
      visual={<AccountChip account={account} flow={flow} />}
      title="Ready to claim"
      actions={
        <Button onClick={flow.claim} disabled={preparing} aria-busy={preparing || undefined}>
          {preparing && <Spinner />}
          Claim my pass
        </Button>
      }
      footnote={FREE_TO_SIGN}
    >
      {account.wallet.name} will ask you to sign one message. It proves this address is yours; it is not a transaction.
    </Panel>
  );
});

/** The wallet has the signature request, or the signed message is on its way to the service. */
export const Working = forwardRef<HTMLHeadingElement, Props & { state: Extract<ClaimState, { kind: 'working' }> }>(function Working({ flow, state }, ref) {
  const { account, step, renewed } = state;
  if (step === 'preparing') return <Ready ref={ref} flow={flow} account={account} preparing />;
  const name = account.wallet.name;
  const signing = step === 'signing';
  return (
    <Panel
      ref={ref}
      visual={<WalletAvatar icon={account.wallet.icon} busy />}
      title={signing ? 'Check your wallet' : 'Creating your pass'}
      actions={
        signing ? (
          <Button variant="secondary" onClick={flow.cancel}>
            Cancel
          </Button>
        ) : (
          <div className={styles.actionPlaceholder} aria-hidden="true" />
        )
      }
      footnote={FREE_TO_SIGN}
    >
      {!signing
        ? 'Signed. Your pass is on its way…'
        : renewed
          ? `The first message expired before it reached us. Approve the new signature request in ${name}.`
          : `Approve the signature request in ${name} to claim your pass.`}
    </Panel>
  );
});

type ProblemCopy = {
  tone: 'warning' | 'danger';
  icon: 'alert' | 'clock' | 'cloud' | 'shield';
  title: string;
  text: string;
  other?: boolean;
  /** No retry helps (the program is closed, sold out or gone): the way forward is the page itself, reloaded. */
  final?: boolean;
};

function problemCopy(problem: Problem, walletName: string): ProblemCopy {
  switch (problem.code) {
    case 'declined':
      return {
        tone: 'warning',
        icon: 'alert',
        title: 'Signature declined',
        text: 'No problem: nothing was signed or shared. Try again whenever you are ready.',
      };
    case 'wallet-failed':
      return {
        tone: 'warning',
        icon: 'alert',
        title: `${walletName} could not sign`,
        text: 'Your wallet ran into a problem. Try again, or use another wallet.',
        other: true,
      };
    case 'cannot-sign':
      return {
        tone: 'warning',
        icon: 'alert',
        title: `${walletName} cannot sign messages`,
        text: 'This wallet does not offer message signing. Choose another wallet to claim your pass.',
        other: true,
      };
    case 'account-changed':
      return {
        tone: 'warning',
        icon: 'alert',
        title: 'A different account signed',
        text: 'Your wallet signed with another account than the one connected. Try again to claim for the connected account.',
      };
    case 'expired':
      return { tone: 'warning', icon: 'clock', title: 'The message expired', text: 'Messages are valid for a few minutes. Sign a fresh one to continue.' };
    case 'used':
      return { tone: 'warning', icon: 'clock', title: 'That message was already used', text: 'Each message works once. Sign a fresh one to continue.' };
    case 'rate-limited':
      return { tone: 'warning', icon: 'clock', title: 'Too many attempts', text: 'Too many claims came from your network just now. Please wait a moment.' };
    case 'unavailable':
      return {
        tone: 'danger',
        icon: 'cloud',
        title: 'Cannot reach the pass service',
        text: 'The service is not answering right now. Your wallet is still connected; try again in a moment.',
      };
    case 'not-eligible':
      return {
        tone: 'warning',
        icon: 'shield',
        title: 'This wallet cannot claim a pass yet',
        text: problem.requirement
          ? `Passes here are for wallets that meet a requirement. To be eligible, this wallet needs to ` +
            `${problem.requirement}. Once it does, try again, or connect a wallet that already does.`
          : 'Passes here are for wallets that meet a requirement this wallet does not meet yet. Once it does, ' +
            'try again, or connect a wallet that already does.',
        other: true,
      };
    case 'closed':
      return problem.opensAt
        ? {
            tone: 'warning',
            icon: 'clock',
            title: 'Not open yet',
            text: `Claims for this pass open ${localTime(problem.opensAt)}. Come back then: your wallet can claim it once it opens.`,
            final: true,
          }
        : { tone: 'warning', icon: 'clock', title: 'Claims are closed', text: 'This pass is no longer being issued. No pass was claimed.', final: true };
    case 'sold-out':
      return {
        tone: 'warning',
        icon: 'alert',
        title: 'Sold out',
        text: 'Every pass of this program has been claimed. No pass was claimed for this wallet.',
        final: true,
      };
    case 'program-not-found':
      return { tone: 'warning', icon: 'alert', title: 'This pass is not available', text: 'The pass on this page is no longer offered.', final: true };
    case 'rejected':
      return {
        tone: 'danger',
        icon: 'alert',
        title: 'The signature did not check out',
        text: 'We could not verify what your wallet signed. Try again, or use another wallet.',
        other: true,
      };
    default:
      return { tone: 'danger', icon: 'alert', title: 'Something went wrong', text: 'We could not create your pass. Please try again in a moment.' };
  }
}

export const ProblemView = forwardRef<HTMLHeadingElement, Props & { state: Extract<ClaimState, { kind: 'problem' }> }>(function ProblemView(
  { flow, state },
  ref,
) {
  const { problem, account } = state;
  const copy = problemCopy(problem, account.wallet.name);
  const Icon = { alert: AlertIcon, clock: ClockIcon, cloud: CloudOffIcon, shield: ShieldIcon }[copy.icon];
  const waitUntil = problem.code === 'rate-limited' ? problem.retryAt : null;
  const secondsLeft = useCountdown(waitUntil);
  const mustWait = secondsLeft > 0;
  return (
    <Panel
      ref={ref}
      visual={
        <Badge tone={copy.tone}>
          <Icon size={30} />
        </Badge>
      }
      title={copy.title}
      actions={
        copy.final ? (
          // The page shows the program as it is now, with its own way forward.
          <Button onClick={() => window.location.reload()}>Reload the page</Button>
        ) : (
          <>
            {problem.code !== 'cannot-sign' && (
              <Button onClick={flow.claim} disabled={mustWait}>
                {mustWait ? `Try again in ${formatWait(secondsLeft)}` : 'Try again'}
              </Button>
            )}
            <Button variant="quiet" onClick={flow.chooseAnotherWallet}>
              {copy.other || problem.code === 'cannot-sign' ? 'Use another wallet' : 'Change wallet'}
            </Button>
          </>
        )
      }
      footnote={problem.code === 'unexpected' && problem.reference ? `Reference for support: ${problem.reference}` : undefined}
    >
      {copy.text}
      {waitUntil !== null && <span className={styles.waitNote}> You can try again {mustWait ? `in ${formatWait(secondsLeft, true)}` : 'now'}.</span>}
    </Panel>
  );
});

/** Seconds left until `at` (ms since epoch), ticking once a second; 0 when `at` is null or past. */
function useCountdown(at: number | null): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (at === null) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [at]);
  return at === null ? 0 : secondsUntil(at, now);
}
