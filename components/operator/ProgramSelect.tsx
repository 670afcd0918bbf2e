'use client';
// The program filter of the passes and the totals: every program by name, or all of them.
import styles from './console.module.css';
import { useConsole } from './console-context';

export function ProgramSelect({ id, value, onChange }: { id: string; value: string; onChange(slug: string): void }) {
  const { programs } = useConsole();
  return (
    <div className={styles.field}>
      <label htmlFor={id}>Program</label>
      <select id={id} className={styles.input} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">All programs</option>
        {programs?.map((program) => (
          <option key={program.slug} value={program.slug}>
            {program.name}
          </option>
        ))}
        {/* A filter on a program not (yet) listed keeps its option, so the select never lies. */}
        {value && !programs?.some((program) => program.slug === value) && <option value={value}>{value}</option>}
      </select>
    </div>
  );
}
