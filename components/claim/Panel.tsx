// The layout every state shares: a visual, a heading, a line of text, and actions held at the
// bottom of the card, so the main button stays in the same place from one state to the next.
import { forwardRef, type ReactNode } from 'react';
import styles from './claim.module.css';

type PanelProps = {
  visual?: ReactNode;
  title: ReactNode;
  children?: ReactNode;
  actions?: ReactNode;
  footnote?: ReactNode;
  align?: 'center' | 'start';
  /** Extra content between the text and the actions (a wallet list, the pass links). */
  body?: ReactNode;
};

export const Panel = forwardRef<HTMLHeadingElement, PanelProps>(function Panel(
  { visual, title, children, actions, footnote, body, align = 'center' },
  headingRef,
) {
  return (
    <div className={`${styles.panel} ${align === 'start' ? styles.panelStart : ''}`}>
      {visual && <div className={styles.visual}>{visual}</div>}
      <h2 ref={headingRef} tabIndex={-1} className={styles.title} id="claim-state-title">
        {title}
      </h2>
      {children && <p className={styles.text}>{children}</p>}
      {body}
      {actions && <div className={styles.actions}>{actions}</div>}
      {footnote && <p className={styles.footnote}>{footnote}</p>}
    </div>
  );
});

/** A round badge with an icon, tinted by tone. */
export function Badge({ tone, children }: { tone: 'accent' | 'success' | 'warning' | 'danger' | 'neutral'; children: ReactNode }) {
  return <span className={`${styles.badge} ${styles[tone]}`}>{children}</span>;
}

/** The wallet's own icon in a ring; the ring turns while the wallet is being asked something. */
export function WalletAvatar({ icon, busy = false }: { icon: string; busy?: boolean }) {
  return (
    <span className={`${styles.avatar} ${busy ? styles.avatarBusy : ''}`}>
      {/* biome-ignore lint/performance/noImgElement: a data: URI from the wallet, nothing to optimise */}
      <img src={icon} alt="" width={44} height={44} />
    </span>
  );
}
