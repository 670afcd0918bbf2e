'use client';
// The door page (/scan): sign in (an operator wallet, through the console's own sign-in and
// session, or a scan key), choose the program this door admits, then scan (./Scanner.tsx). The
// chosen program is remembered on this device; the key only in this tab.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import consoleStyles from '@/components/operator/console.module.css';
import { Address } from '@/components/operator/console-context';
import { SignIn } from '@/components/operator/SignIn';
import { useOperatorSession } from '@/components/operator/use-operator-session';
import { Button } from '@/components/ui/Button';
import { ArrowRightIcon } from '@/components/ui/icons';
import { ClaimApiError } from '@/lib/client';
import { type DoorCredential, type DoorProgram, doorApi } from '@/lib/client/check-in';
import { unlockSound } from './feedback';
import { ScanKeyForm } from './ScanKeyForm';
import { Scanner } from './Scanner';
import styles from './scan.module.css';

const KEY_STORAGE = 'wpc.door.key';
const PROGRAM_STORAGE = 'wpc.door.program';
const KEY_REFUSED = 'This key is no longer accepted (revoked or mistyped). Ask an operator for a new one.';

function stored(storage: () => Storage, name: string): string | null {
  try {
    return storage().getItem(name);
  } catch {
    return null;
  }
}

function store(storage: () => Storage, name: string, value: string | null): void {
  try {
    if (value === null) storage().removeItem(name);
    else storage().setItem(name, value);
  } catch {
    // storage refused: remembered for this page only
  }
}

const session = () => window.sessionStorage;
const local = () => window.localStorage;

type Programs = { status: 'loading' } | { status: 'ready'; list: DoorProgram[] } | { status: 'failed'; message: string };

export function DoorPage() {
  const operator = useOperatorSession();
  // undefined until this tab's storage has been read (after the first render: the server has none).
  const [key, setKey] = useState<string | null | undefined>(undefined);
  const [keyProblem, setKeyProblem] = useState<string | null>(null);
  const [programs, setPrograms] = useState<Programs>({ status: 'loading' });
  const [program, setProgram] = useState<DoorProgram | null>(null);
  const [attempt, setAttempt] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => setKey(stored(session, KEY_STORAGE)), []);

  const credential: DoorCredential | null = key ? { kind: 'key', key } : operator.state.kind === 'signed-in' ? { kind: 'session' } : null;
  const credentialId = credential?.kind === 'key' ? credential.key : (credential?.kind ?? null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: one client per credential (credentialId names it)
  const api = useMemo(() => (credential ? doorApi(credential) : null), [credentialId]);

  /**
   * Ends the door's sign-in: forgets the key, or ends the session. `refused`: the service refused
   * the credential (401, 403), which the sign-in view then says (for a key, in these words).
   */
  const signOut = useCallback(
    (refused?: string) => {
      setProgram(null);
      setPrograms({ status: 'loading' });
      if (key) {
        store(session, KEY_STORAGE, null);
        setKey(null);
        setKeyProblem(refused ?? null);
      } else if (refused) {
        operator.sessionEnded(); // "Your session has ended. Sign in again."
      } else {
        void operator.signOut().catch(() => operator.sessionEnded());
      }
    },
    [key, operator],
  );

  const refused = useCallback(() => signOut(KEY_REFUSED), [signOut]);

  // Browsers start audio only after a tap or a key press on the page: the first one unlocks it
  // (the program remembered from last time needs no tap to start scanning).
  useEffect(() => {
    const unlock = () => unlockSound();
    document.addEventListener('pointerdown', unlock, { once: true });
    document.addEventListener('keydown', unlock, { once: true });
    return () => {
      document.removeEventListener('pointerdown', unlock);
      document.removeEventListener('keydown', unlock);
    };
  }, []);

  // The programs, once signed in: the door chooses one (the one chosen last time, if it still exists).
  // biome-ignore lint/correctness/useExhaustiveDependencies: attempt is the retry trigger
  useEffect(() => {
    if (!api) return;
    let live = true;
    setPrograms({ status: 'loading' });
    api.programs().then(
      (list) => {
        if (!live) return;
        if (key) store(session, KEY_STORAGE, key); // accepted: kept for this tab
        setPrograms({ status: 'ready', list });
        const last = stored(local, PROGRAM_STORAGE);
        setProgram((current) => current ?? list.find((p) => p.slug === last) ?? null);
      },
      (error: unknown) => {
        if (!live) return;
        if (error instanceof ClaimApiError && error.status === 401) refused();
        else if (error instanceof ClaimApiError && error.status === 403) signOut('This key may not check passes in. Ask an operator for a scan key.');
        else
          setPrograms({
            status: 'failed',
            message: error instanceof ClaimApiError && error.status === 0 ? 'The service cannot be reached.' : 'The programs could not be loaded.',
          });
      },
    );
    return () => {
      live = false;
    };
  }, [api, attempt]);

  const view = !credential ? 'sign-in' : !program ? 'choose' : 'scan';
  const previousView = useRef<string | null>(null);
  useEffect(() => {
    if (previousView.current !== null && previousView.current !== view && view !== 'sign-in') heading.current?.focus();
    previousView.current = view;
  }, [view]);

  function choose(chosen: DoorProgram) {
    unlockSound(); // a tap: the answers may beep from now on
    store(local, PROGRAM_STORAGE, chosen.slug);
    setProgram(chosen);
  }

  if (key === undefined || (!key && operator.state.kind === 'checking')) {
    return (
      <p role="status" className={consoleStyles.muted}>
        Checking your sign-in…
      </p>
    );
  }

  if (!credential || !api) {
    return (
      <div className={styles.column} data-view="sign-in">
        <SignIn ref={heading} session={operator} />
        <ScanKeyForm
          problem={keyProblem}
          onKey={(value) => {
            setKeyProblem(null);
            setKey(value);
          }}
        />
      </div>
    );
  }

  const who =
    credential.kind === 'key' ? (
      'Signed in with a scan key'
    ) : operator.state.kind === 'signed-in' ? (
      <>
        Signed in as <Address value={operator.state.session.publicKey} />
      </>
    ) : (
      'Signed in'
    );

  return (
    <div className={styles.column} data-view={view}>
      {program ? (
        <>
          <div className={styles.doorBar}>
            <h2 ref={heading} tabIndex={-1} className={styles.doorTitle}>
              <span className={styles.doorLabel}>Checking in</span> {program.name}
            </h2>
            <Button variant="secondary" className={styles.compact} onClick={() => setProgram(null)}>
              Change
            </Button>
          </div>
          <Scanner key={program.slug} api={api} program={program} onUnauthorized={refused} />
        </>
      ) : (
        <section className={consoleStyles.card} aria-labelledby="door-program-title">
          <h2 id="door-program-title" ref={heading} tabIndex={-1} className={consoleStyles.cardTitle}>
            Which program does this door admit?
          </h2>
          {programs.status === 'loading' ? (
            <p role="status" className={consoleStyles.muted}>
              Loading the programs…
            </p>
          ) : programs.status === 'failed' ? (
            <>
              <p role="alert" className={consoleStyles.alert}>
                {programs.message}
              </p>
              <Button variant="secondary" onClick={() => setAttempt((n) => n + 1)}>
                Try again
              </Button>
            </>
          ) : (
            <ul className={consoleStyles.walletList} aria-label="Programs">
              {programs.list.map((choice) => (
                <li key={choice.slug}>
                  <button type="button" className={consoleStyles.walletButton} data-slug={choice.slug} onClick={() => choose(choice)}>
                    <span className={consoleStyles.walletName}>
                      {choice.name}
                      <span className={styles.slug}> {choice.slug}</span>
                    </span>
                    <ArrowRightIcon size={18} />
                  </button>
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
      <div className={styles.footer}>
        <span className={consoleStyles.muted}>{who}</span>
        <Button variant="quiet" onClick={() => signOut()}>
          {credential.kind === 'key' ? 'Forget this key' : 'Sign out'}
        </Button>
      </div>
    </div>
  );
}
