'use client';
// The programs: each with its status, counts, window, supply and claim page, and the editor for a
// new one or a chosen one. The editor (the form, zod and the live picture) is a chunk of its own,
// fetched when the operator opens it: the console's first load does not carry it.
import dynamic from 'next/dynamic';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/Button';
import type { Program } from '@/lib/client/operator';
import styles from './console.module.css';
import { formatDateTime, useConsole } from './console-context';
import { ProgramMessage } from './ProgramMessage';

const ProgramEditor = dynamic(() => import('./ProgramEditor').then((module) => module.ProgramEditor), {
  ssr: false,
  loading: () => (
    <p role="status" className={styles.muted}>
      Loading the editor…
    </p>
  ),
});

const STATUS_WORDS: Record<Program['status'], { label: string; className: string }> = {
  draft: { label: 'Draft', className: styles.badgeWarning ?? '' },
  live: { label: 'Live', className: styles.badgeSuccess ?? '' },
  closed: { label: 'Closed', className: styles.badgeDanger ?? '' },
};

function windowWords(program: Program): string {
  if (!program.opensAt && !program.closesAt) return 'Always';
  if (!program.closesAt) return `From ${formatDateTime(program.opensAt)}`;
  if (!program.opensAt) return `Until ${formatDateTime(program.closesAt)}`;
  return `${formatDateTime(program.opensAt)} – ${formatDateTime(program.closesAt)}`;
}

/** What the editor is open on: a new program (slug null until created), or one by its slug. `session` keys one opening. */
type Editing = { session: number; slug: string | null } | null;

export function ProgramsPanel() {
  const { programs, programsError } = useConsole();
  const [editing, setEditing] = useState<Editing>(null);
  const [messaging, setMessaging] = useState<string | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const wasEditing = useRef(false);

  // Focus goes back to the button that opened the editor when it closes (the editor moves it in).
  useEffect(() => {
    if (wasEditing.current && !editing && opener.current?.isConnected) opener.current.focus();
    wasEditing.current = editing !== null;
  }, [editing]);

  function open(slug: string | null, event: React.MouseEvent<HTMLElement>) {
    opener.current = event.currentTarget;
    setEditing((previous) => ({ session: (previous?.session ?? 0) + 1, slug }));
  }

  const program = editing?.slug ? (programs?.find((p) => p.slug === editing.slug) ?? null) : null;
  const messagingProgram = messaging ? programs?.find((p) => p.slug === messaging) : undefined;

  return (
    <section className={styles.card} aria-labelledby="programs-title">
      <div className={styles.cardHeading}>
        <h2 id="programs-title" className={styles.cardTitle}>
          Programs
        </h2>
        <Button className={styles.compact} onClick={(event) => open(null, event)}>
          New program
        </Button>
      </div>
      {programsError && (
        <p role="alert" className={styles.alert}>
          {programsError}
        </p>
      )}
      {!programs ? (
        <p role="status" className={styles.muted}>
          Loading programs…
        </p>
      ) : (
        <table className={styles.table} role="table" aria-labelledby="programs-title">
          <thead role="rowgroup">
            <tr role="row">
              <th role="columnheader" scope="col">
                Program
              </th>
              <th role="columnheader" scope="col">
                Status
              </th>
              <th role="columnheader" scope="col">
                Passes
              </th>
              <th role="columnheader" scope="col">
                Open
              </th>
              <th role="columnheader" scope="col">
                Supply
              </th>
              <th role="columnheader" scope="col">
                <span className="visually-hidden">Claim page and actions</span>
              </th>
            </tr>
          </thead>
          <tbody role="rowgroup">
            {programs.map((p) => (
              <tr role="row" key={p.slug} data-program={p.slug} data-status={p.status}>
                <td role="cell" data-label="Program">
                  <strong>{p.name}</strong>
                  <span className={`${styles.reason} ${styles.mono}`}>{p.slug}</span>
                </td>
                <td role="cell" data-label="Status">
                  <span className={`${styles.badge} ${STATUS_WORDS[p.status].className}`}>{STATUS_WORDS[p.status].label}</span>
                </td>
                <td role="cell" data-label="Passes">
                  {p.passes.toLocaleString('en')}
                  <span className={styles.reason}>{p.active.toLocaleString('en')} active</span>
                </td>
                <td role="cell" data-label="Open">
                  {windowWords(p)}
                </td>
                <td role="cell" data-label="Supply">
                  {p.supply === null ? 'No limit' : `${p.passes.toLocaleString('en')} of ${p.supply.toLocaleString('en')}`}
                </td>
                <td role="cell" className={styles.rowActions}>
                  <span className={styles.toolbar}>
                    <a className={styles.link} href={p.claimUrl} target="_blank" rel="noopener">
                      Claim page<span className="visually-hidden"> of {p.name} (opens in a new tab)</span>
                    </a>
                    <Button variant="secondary" className={styles.compact} aria-pressed={editing?.slug === p.slug} onClick={(event) => open(p.slug, event)}>
                      Edit<span className="visually-hidden"> {p.name}</span>
                    </Button>
                    {p.status === 'live' && (
                      <Button variant="secondary" className={styles.compact} aria-pressed={messaging === p.slug} onClick={() => setMessaging(p.slug)}>
                        Message<span className="visually-hidden"> the holders of {p.name}</span>
                      </Button>
                    )}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {messagingProgram && <ProgramMessage key={messagingProgram.slug} program={messagingProgram} onClose={() => setMessaging(null)} />}
      {editing && (
        <ProgramEditor
          key={editing.session}
          program={program}
          onClose={() => setEditing(null)}
          onCreated={(slug) => setEditing({ session: editing.session, slug })}
        />
      )}
    </section>
  );
}
