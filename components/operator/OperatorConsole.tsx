'use client';
// The operator console: sign-in until this browser holds a session, then the totals, the chart,
// the passes, API keys and webhook deliveries. Focus moves to the new view's heading when signing
// in or out, and what an action did is said in one live region.
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Button } from '@/components/ui/Button';
import { ClaimApiError } from '@/lib/client';
import { operatorApi, type Program } from '@/lib/client/operator';
import { ApiKeysPanel } from './ApiKeysPanel';
import styles from './console.module.css';
import { Address, type ConsoleContext, ConsoleContextValue, describeApiError, formatDateTime } from './console-context';
import { DeliveriesPanel } from './DeliveriesPanel';
import { PassesPanel } from './PassesPanel';
import { ProgramsPanel } from './ProgramsPanel';
import { SignIn } from './SignIn';
import { StatsPanel } from './StatsPanel';
import { useOperatorSession } from './use-operator-session';

export function OperatorConsole() {
  const session = useOperatorSession();
  const { state, sessionEnded } = session;
  const signedIn = state.kind === 'signed-in';
  const heading = useRef<HTMLHeadingElement>(null);
  const [announcement, setAnnouncement] = useState('');
  const [version, setVersion] = useState(0);
  const [signOutError, setSignOutError] = useState<string | null>(null);
  const [programs, setPrograms] = useState<{ list: Program[] | null; error: string | null }>({ list: null, error: null });

  // Focus follows a sign-in or sign-out (not the first answer about the session at load).
  const wasSignedIn = useRef<boolean | null>(null);
  useEffect(() => {
    if (state.kind === 'checking' || state.kind === 'signing-in') return;
    const previous = wasSignedIn.current;
    wasSignedIn.current = signedIn;
    if (previous !== null && previous !== signedIn) heading.current?.focus({ preventScroll: false });
  }, [state.kind, signedIn]);

  const describe = useCallback(
    (error: unknown) => {
      if (error instanceof ClaimApiError && error.status === 401) sessionEnded();
      return describeApiError(error);
    },
    [sessionEnded],
  );

  // The programs, for the programs panel and the passes' and totals' program filters: loaded once
  // signed in, and again after every change.
  // biome-ignore lint/correctness/useExhaustiveDependencies: version is the reload trigger (it changes after an operator action)
  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    operatorApi.programs().then(
      (list) => live && setPrograms({ list, error: null }),
      (failure: unknown) => live && setPrograms((previous) => ({ list: previous.list, error: describe(failure) })),
    );
    return () => {
      live = false;
    };
  }, [signedIn, describe, version]);

  const context = useMemo(
    (): ConsoleContext => ({
      describe,
      announce: setAnnouncement,
      changed: () => setVersion((v) => v + 1),
      version,
      programs: programs.list,
      programsError: programs.error,
    }),
    [describe, version, programs],
  );

  async function signOut() {
    setSignOutError(null);
    try {
      await session.signOut();
      setAnnouncement('Signed out.');
    } catch (error) {
      setSignOutError(describeApiError(error));
    }
  }

  return (
    <div className={styles.console} data-session={state.kind}>
      <p role="status" className="visually-hidden" aria-live="polite">
        {announcement}
      </p>
      {state.kind === 'checking' ? (
        <p role="status" className={styles.muted}>
          Checking your session…
        </p>
      ) : state.kind === 'signed-in' ? (
        <ConsoleContextValue.Provider value={context}>
          <div className={styles.sessionBar}>
            <h2 ref={heading} tabIndex={-1} className={styles.sessionText}>
              Signed in as <Address value={state.session.publicKey} />
              <span className={styles.muted}> until {formatDateTime(state.session.expiresAt)}</span>
            </h2>
            <Button variant="secondary" className={styles.compact} onClick={() => void signOut()}>
              Sign out
            </Button>
          </div>
          {signOutError && (
            <p role="alert" className={styles.alert}>
              {signOutError}
            </p>
          )}
          <div className={styles.grid}>
            <StatsPanel />
          </div>
          <ProgramsPanel />
          <PassesPanel />
          <div className={styles.grid}>
            <ApiKeysPanel />
            <DeliveriesPanel />
          </div>
        </ConsoleContextValue.Provider>
      ) : (
        <SignIn ref={heading} session={session} />
      )}
    </div>
  );
}
