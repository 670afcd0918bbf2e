// No such program (or a draft, which only operators see): a real 404, in the claim page's look,
// with a way on.
import { LinkButton } from '@/components/ui/Button';
import { PassIcon } from '@/components/ui/icons';
import styles from '../../page.module.css';
import own from './program.module.css';

export default function ProgramNotFound() {
  return (
    <main className={styles.main}>
      <div className={styles.brand}>
        <span className={styles.brandMark} aria-hidden="true">
          <PassIcon size={20} />
        </span>
        Wallet Pass
      </div>
      <h1 className={styles.title}>No pass here</h1>
      <p className={styles.lede}>There is no pass to claim at this address. Check the link you were given, or claim the main pass.</p>
      <div className={own.notFoundActions}>
        <LinkButton href="/">See the main pass</LinkButton>
      </div>
    </main>
  );
}
