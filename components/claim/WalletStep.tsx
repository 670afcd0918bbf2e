'use client';
// Step 1, Connect: the wallet list (one tap connects), the search for wallets, no wallet at all,
// connecting, a connection that failed, and a wallet that disconnected mid-way.
import { forwardRef, useEffect, useState } from 'react';
import { Button, LinkButton } from '@/components/ui/Button';
import { AlertIcon, ArrowRightIcon, ExternalIcon, UnlinkIcon, WalletIcon } from '@/components/ui/icons';
import styles from './claim.module.css';
import type { ClaimState, WalletOption } from './claim-state';
import { Badge, Panel, WalletAvatar } from './Panel';
import type { ClaimFlow, WalletList } from './use-claim-flow';

/** Where a person without a wallet can pick one (the Solana Foundation's neutral list). */
const GET_A_WALLET_URL = 'https://solana.com/solana-wallets';

type Props = { flow: ClaimFlow };

export const ChooseWallet = forwardRef<HTMLHeadingElement, Props & { list: WalletList }>(function ChooseWallet({ flow, list }, ref) {
  if (list.status === 'none') return <NoWallet ref={ref} flow={flow} />;
  return (
    <Panel
      ref={ref}
      align="start"
      title="Connect your wallet"
      body={
        list.status === 'searching' ? (
          <div className={styles.walletList} aria-busy="true">
            <span role="status" className="visually-hidden">
              Looking for wallets…
            </span>
            <div className={styles.walletSkeleton} />
            <div className={styles.walletSkeleton} />
          </div>
        ) : (
          <ul className={styles.walletList} aria-label="Wallets in this browser">
            {list.wallets.map((wallet) => (
              <li key={wallet.name}>
                <button
                  type="button"
                  className={styles.walletButton}
                  onPointerEnter={flow.prepare}
                  onTouchStart={flow.prepare}
                  onFocus={flow.prepare}
                  onClick={() => flow.connect(wallet)}
                >
                  {/* biome-ignore lint/performance/noImgElement: the wallet's data: URI icon, nothing to optimise */}
                  <img src={wallet.icon} alt="" width={36} height={36} className={styles.walletIcon} />
                  <span className={styles.walletName}>{wallet.name}</span>
                  <span className={styles.detected}>Detected</span>
                  <ArrowRightIcon size={18} className={styles.walletArrow} />
                </button>
              </li>
            ))}
          </ul>
        )
      }
      actions={
        <LinkButton href={GET_A_WALLET_URL} target="_blank" rel="noopener noreferrer" variant="quiet" className={styles.getWallet}>
          New to Solana? Get a wallet
          <ExternalIcon size={16} />
          <span className="visually-hidden">(opens in a new tab)</span>
        </LinkButton>
      }
      footnote="Connecting shares only your public address."
    >
      Choose the wallet that holds the address you want a pass for.
    </Panel>
  );
});

const NoWallet = forwardRef<HTMLHeadingElement, Props>(function NoWallet({ flow }, ref) {
  // A phone has no extensions: offer to open this page inside a wallet app's own browser.
  const [phantomLink, setPhantomLink] = useState<string | null>(null);
  useEffect(() => {
    if (!window.matchMedia('(pointer: coarse)').matches) return;
    const here = window.location.href;
    setPhantomLink(`https://phantom.app/ul/browse/${encodeURIComponent(here)}?ref=${encodeURIComponent(window.location.origin)}`);
  }, []);
  return (
    <Panel
      ref={ref}
      visual={
        <Badge tone="neutral">
          <WalletIcon size={30} />
        </Badge>
      }
      title="No Solana wallet found"
      actions={
        <>
          {phantomLink && (
            <LinkButton href={phantomLink} variant="primary">
              Open in Phantom
            </LinkButton>
          )}
          <LinkButton href={GET_A_WALLET_URL} target="_blank" rel="noopener noreferrer" variant={phantomLink ? 'secondary' : 'primary'}>
            Get a wallet
            <ExternalIcon size={18} />
            <span className="visually-hidden">(opens in a new tab)</span>
          </LinkButton>
          <Button variant="quiet" onClick={flow.searchAgain}>
            I have installed one: look again
          </Button>
        </>
      }
    >
      {phantomLink
        ? 'Open this page in your wallet app’s browser, or install a Solana wallet to claim your pass.'
        : 'Install a Solana wallet extension such as Phantom, Solflare or Backpack, then come back to this page.'}
    </Panel>
  );
});

export const Connecting = forwardRef<HTMLHeadingElement, Props & { wallet: WalletOption }>(function Connecting({ flow, wallet }, ref) {
  return (
    <Panel
      ref={ref}
      visual={<WalletAvatar icon={wallet.icon} busy />}
      title={`Connecting to ${wallet.name}`}
      actions={
        <Button variant="secondary" onClick={flow.cancel}>
          Cancel
        </Button>
      }
    >
      Approve the connection in {wallet.name} to continue.
    </Panel>
  );
});

export const ConnectFailed = forwardRef<HTMLHeadingElement, Props & { state: Extract<ClaimState, { kind: 'connect-failed' }> }>(function ConnectFailed(
  { flow, state },
  ref,
) {
  const { wallet, reason } = state;
  const copy = {
    declined: { title: 'Connection declined', text: `${wallet.name} did not connect. Nothing was shared. Try again when you are ready.` },
    failed: { title: `${wallet.name} did not connect`, text: 'Your wallet could not connect. Unlock it and try again, or choose another wallet.' },
    'load-failed': { title: 'Could not load wallet support', text: 'Check your internet connection and try again.' },
  }[reason];
  return (
    <Panel
      ref={ref}
      visual={
        <Badge tone="warning">
          <AlertIcon size={30} />
        </Badge>
      }
      title={copy.title}
      actions={
        <>
          <Button onClick={() => flow.connect(wallet)}>Try again</Button>
          <Button variant="quiet" onClick={flow.chooseAnotherWallet}>
            Choose another wallet
          </Button>
        </>
      }
    >
      {copy.text}
    </Panel>
  );
});

export const Disconnected = forwardRef<HTMLHeadingElement, Props & { wallet: WalletOption }>(function Disconnected({ flow, wallet }, ref) {
  return (
    <Panel
      ref={ref}
      visual={
        <Badge tone="warning">
          <UnlinkIcon size={30} />
        </Badge>
      }
      title="Your wallet disconnected"
      actions={
        <>
          <Button onClick={() => flow.connect(wallet)}>Reconnect {wallet.name}</Button>
          <Button variant="quiet" onClick={flow.chooseAnotherWallet}>
            Choose another wallet
          </Button>
        </>
      }
    >
      {wallet.name} is no longer connected to this page. Reconnect to pick up where you left off.
    </Panel>
  );
});
