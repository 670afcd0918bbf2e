'use client';
// Signing in at the door without a wallet: an operator makes a scan key in the console (scope
// "scan": it can check passes in and list programs, nothing else) and hands it to the volunteer,
// who pastes it here. It is kept in this tab's sessionStorage only: closing the tab forgets it.
import { type FormEvent, useState } from 'react';
import styles from '@/components/operator/console.module.css';
import { Button } from '@/components/ui/Button';
import { API_KEY_SHAPE } from '@/lib/client/check-in';

export function ScanKeyForm({ onKey, problem }: { onKey(key: string): void; problem?: string | null }) {
  const [value, setValue] = useState('');
  const [shapeError, setShapeError] = useState(false);

  function submit(event: FormEvent) {
    event.preventDefault();
    const key = value.trim();
    if (!API_KEY_SHAPE.test(key)) {
      setShapeError(true);
      return;
    }
    setShapeError(false);
    onKey(key);
  }

  const error = shapeError ? 'That is not a key of this service: a key starts with wpck_ and has 48 characters.' : problem;
  return (
    <section className={styles.card} aria-labelledby="scan-key-title">
      <h2 id="scan-key-title" className={styles.cardTitle}>
        Or use a scan key
      </h2>
      <form className={styles.stack} onSubmit={submit} noValidate>
        <div className={styles.field}>
          <label htmlFor="scan-key">Scan key</label>
          <input
            id="scan-key"
            className={styles.input}
            type="password"
            value={value}
            onChange={(event) => setValue(event.target.value)}
            autoComplete="off"
            spellCheck={false}
            aria-invalid={error ? true : undefined}
            aria-describedby="scan-key-hint"
          />
          <span id="scan-key-hint" className={styles.hint}>
            From an operator (console, API keys, scope “scan”). Kept in this tab only.
          </span>
        </div>
        {error && (
          <p role="alert" className={styles.alert}>
            {error}
          </p>
        )}
        <Button type="submit" variant="secondary" disabled={!value.trim()}>
          Use this key
        </Button>
      </form>
    </section>
  );
}
