'use client';
// The claim card: the three steps, and the current state in a stage of fixed minimum height, so
// nothing around it moves as states change. Focus follows the state's heading, so keyboard and
// screen-reader users land on what just changed.
import { type ReactNode, useEffect, useRef } from 'react';
import { CheckIcon } from '@/components/ui/icons';
import styles from './claim.module.css';
import { type ClaimState, stepOf } from './claim-state';
import { PassPreview } from './PassPreview';
import { loadQrCode, Result } from './ResultStep';
import { ProblemView, Ready, Working } from './SignStep';
import { type ClaimFlow, useClaimFlow } from './use-claim-flow';
import { ChooseWallet, ConnectFailed, Connecting, Disconnected } from './WalletStep';

const STEPS = ['Connect', 'Sign', 'Add to Wallet'] as const;
/** Views that show the same panel: moving between them leaves focus where it is. */
const FOCUS_STAYS = [new Set(['searching', 'choose', 'no-wallet']), new Set(['ready', 'preparing']), new Set(['signing', 'submitting'])];

/**
 * The page's interactive part: the introduction (server-rendered, passed in), the pass picture, the
 * card. `program`: the slug a program's page claims for (none: the default program). `preview`: that
 * program's pass picture, drawn for the state (the wallet connected); none: the wallet-brand picture.
 */
export function ClaimExperience({ intro, program, preview }: { intro: ReactNode; program?: string; preview?: (state: ClaimState) => ReactNode }) {
  const flow = useClaimFlow(program);
  return (
    <div className={styles.layout}>
      <div className={styles.intro}>
        {intro}
        {preview ? (
          <div className={styles.programPreview}>{preview(flow.state)}</div>
        ) : (
          <div className={styles.preview}>
            <PassPreview state={flow.state} />
          </div>
        )}
      </div>
      <ClaimCard flow={flow} />
    </div>
  );
}

function ClaimCard({ flow }: { flow: ClaimFlow }) {
  const { state, Bridge } = flow;
  const heading = useRef<HTMLHeadingElement>(null);

  // Move focus to the new state's heading, unless the panel stays the same (the page finding
  // wallets on its own, a busy button, a signature on its way).
  const view = viewKey(state, flow);
  const previousView = useRef(view);
  useEffect(() => {
    const previous = previousView.current;
    previousView.current = view;
    if (previous === view || FOCUS_STAYS.some((group) => group.has(previous) && group.has(view))) return;
    heading.current?.focus({ preventScroll: true });
  }, [view]);

  // The result's QR encoder loads while the claim is in flight.
  useEffect(() => {
    if (state.kind === 'working') void loadQrCode().catch(() => undefined);
  }, [state.kind]);

  const step = stepOf(state);
  return (
    <section className={styles.card} aria-labelledby="claim-state-title" data-state={view}>
      <ol className={styles.steps}>
        {STEPS.map((label, index) => {
          const number = index + 1;
          const status = number < step ? 'done' : number === step ? 'current' : 'next';
          return (
            <li key={label} className={`${styles.step} ${styles[`step_${status}`]}`} aria-current={status === 'current' ? 'step' : undefined}>
              <span className={styles.stepDot} aria-hidden="true">
                {status === 'done' ? <CheckIcon size={14} strokeWidth={3} /> : number}
              </span>
              <span className={styles.stepLabel}>
                {label}
                {status === 'done' && <span className="visually-hidden"> (done)</span>}
              </span>
            </li>
          );
        })}
      </ol>
      <div className={styles.stage}>
        <StateView flow={flow} headingRef={heading} />
      </div>
      {Bridge && <Bridge {...flow.bridgeProps} />}
    </section>
  );
}

function StateView({ flow, headingRef }: { flow: ClaimFlow; headingRef: React.Ref<HTMLHeadingElement> }) {
  const { state } = flow;
  switch (state.kind) {
    case 'idle':
      return <ChooseWallet ref={headingRef} flow={flow} list={flow.walletList} />;
    case 'connecting':
      return <Connecting ref={headingRef} flow={flow} wallet={state.wallet} />;
    case 'connect-failed':
      return <ConnectFailed ref={headingRef} flow={flow} state={state} />;
    case 'disconnected':
      return <Disconnected ref={headingRef} flow={flow} wallet={state.wallet} />;
    case 'ready':
      return <Ready ref={headingRef} flow={flow} account={state.account} />;
    case 'working':
      return <Working ref={headingRef} flow={flow} state={state} />;
    case 'problem':
      return <ProblemView ref={headingRef} flow={flow} state={state} />;
    case 'done':
      return <Result ref={headingRef} state={state} />;
  }
}

/** A name for what the card shows (also exposed as data-state, which the end-to-end tests read). */
function viewKey(state: ClaimState, flow: ClaimFlow): string {
  switch (state.kind) {
    case 'idle':
      return flow.walletList.status === 'none' ? 'no-wallet' : flow.walletList.status === 'searching' ? 'searching' : 'choose';
    case 'working':
      return state.step;
    case 'problem':
      return state.problem.code;
    default:
      return state.kind;
  }
}
