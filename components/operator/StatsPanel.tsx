'use client';
// The totals and the charts of claims, check-ins, installs and uninstalls per day, from GET /api/v1/operator/stats, of every program or of
// one; they reload with the list whenever a pass changes.
import { useEffect, useState } from 'react';
import { type OperatorStats, operatorApi } from '@/lib/client/operator';
import styles from './console.module.css';
import { useConsole } from './console-context';
import { type Counted, DayChart } from './DayChart';
import { ProgramSelect } from './ProgramSelect';

const CLAIMS: Counted = { one: 'claim', many: 'claims', title: 'Claims', testId: 'claims-chart' };
const CHECK_INS: Counted = { one: 'check-in', many: 'check-ins', title: 'Check-ins', testId: 'check-ins-chart' };
const INSTALLS: Counted = { one: 'install', many: 'installs', title: 'Installs', testId: 'installs-chart' };
const UNINSTALLS: Counted = { one: 'uninstall', many: 'uninstalls', title: 'Uninstalls', testId: 'uninstalls-chart' };

type PerDay = 'claimsPerDay' | 'checkInsPerDay' | 'installsPerDay' | 'uninstallsPerDay';

/** The charts, in order: each a card with its heading. */
const CHARTS: { key: PerDay; title: string; counted: Counted }[] = [
  { key: 'claimsPerDay', title: 'Claims per day', counted: CLAIMS },
  { key: 'checkInsPerDay', title: 'Check-ins per day', counted: CHECK_INS },
  { key: 'installsPerDay', title: 'Installs per day', counted: INSTALLS },
  { key: 'uninstallsPerDay', title: 'Uninstalls per day', counted: UNINSTALLS },
];

const TOTALS: { key: keyof Omit<OperatorStats, PerDay>; label: string }[] = [
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
      {CHARTS.map(({ key, title, counted }) => (
        <section key={key} className={styles.card} aria-labelledby={`${counted.testId}-title`}>
          <h2 id={`${counted.testId}-title`} className={styles.cardTitle}>
            {title}
          </h2>
          {stats ? <DayChart days={stats[key]} counted={counted} /> : <div className={styles.chartPlaceholder} aria-hidden="true" />}
        </section>
      ))}
    </>
  );
}
