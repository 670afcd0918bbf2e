'use client';
// The totals and the claims-per-day chart, from GET /api/v1/operator/stats, of every program or of
// one; they reload with the list whenever a pass changes.
import { useEffect, useState } from 'react';
import { type OperatorStats, operatorApi } from '@/lib/client/operator';
import { ClaimsChart } from './ClaimsChart';
import styles from './console.module.css';
import { useConsole } from './console-context';
import { ProgramSelect } from './ProgramSelect';

const TOTALS: { key: keyof Omit<OperatorStats, 'claimsPerDay' | 'checkInsPerDay'>; label: string }[] = [
  { key: 'passes', label: 'Passes' },
  { key: 'active', label: 'Active' },
  { key: 'voided', label: 'Voided' },
  { key: 'devicesRegistered', label: 'Devices registered' },
];

export function StatsPanel() {
  const { describe, version } = useConsole();
  const [stats, setStats] = useState<OperatorStats | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [program, setProgram] = useState('');

  // biome-ignore lint/correctness/useExhaustiveDependencies: version is the reload trigger (it changes after an operator action)
  useEffect(() => {
    let live = true;
    operatorApi.stats(program || undefined).then(
      (value) => {
        if (!live) return;
        setStats(value);
        setError(null);
      },
      (failure: unknown) => live && setError(describe(failure)),
    );
    return () => {
      live = false;
    };
  }, [describe, version, program]);

  return (
    <>
      <section className={styles.card} aria-labelledby="totals-title">
        <h2 id="totals-title" className={styles.cardTitle}>
          Totals
        </h2>
        <ProgramSelect id="totals-program" value={program} onChange={setProgram} />
        {error && (
          <p role="alert" className={styles.alert}>
            {error}
          </p>
        )}
        <dl className={styles.totals} aria-busy={!stats}>
          {TOTALS.map(({ key, label }) => (
            <div key={key} className={styles.total} data-total={key}>
              <dt>{label}</dt>
              <dd>{stats ? stats[key].toLocaleString('en') : '–'}</dd>
            </div>
          ))}
        </dl>
      </section>
      <section className={styles.card} aria-labelledby="chart-title">
        <h2 id="chart-title" className={styles.cardTitle}>
          Claims per day
        </h2>
        {stats ? <ClaimsChart days={stats.claimsPerDay} /> : <div className={styles.chartPlaceholder} aria-hidden="true" />}
      </section>
    </>
  );
}
