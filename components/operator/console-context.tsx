'use client';
// What the console's panels share: the words for an API failure (a 401 ends the session and
// returns to sign-in), a polite live region for what an action did, and a version that moves on
// every change so that the totals, the chart and the list reload together; and the programs, which
// the programs panel lists and the passes and totals filter by.
import { createContext, useContext } from 'react';
import { ClaimApiError } from '@/lib/client';
import type { Program } from '@/lib/client/operator';
import styles from './console.module.css';

export type ConsoleContext = {
  /** The words for a failure; a 401 also signs the operator out. */
  describe(error: unknown): string;
  /** Says something in the live region (screen readers hear it; it is also shown). */
  announce(text: string): void;
  /** A pass or a program changed: reload what depends on them. */
  changed(): void;
  version: number;
  /** Every program, `default` first (null until loaded), reloaded with `version`. */
  programs: Program[] | null;
  /** Why the programs could not be loaded. */
  programsError: string | null;
};

export const ConsoleContextValue = createContext<ConsoleContext | null>(null);

export function useConsole(): ConsoleContext {
  const value = useContext(ConsoleContextValue);
  if (!value) throw new Error('useConsole outside the console');
  return value;
}

/** The operator's words for an API failure. The problem's own detail is for operators too: it is shown. */
export function describeApiError(error: unknown): string {
  if (!(error instanceof ClaimApiError)) return 'Something went wrong. Try again.';
  switch (error.status) {
    case 0:
      return 'The service cannot be reached. Check the connection and try again.';
    case 401:
      return 'Your session has ended. Sign in again.';
    case 403:
      return 'This wallet may not do that.';
    case 404:
      if (error.code === 'pass_not_found') return 'That pass no longer exists.';
      if (error.code === 'program_not_found') return 'That program no longer exists.';
      return 'Not found.';
    case 413:
      return 'That is too big for the service (an image may be at most 2 MiB).';
    case 415:
      return error.problem?.detail ?? 'The service does not take that type of file.';
    case 429:
      return `Too many requests. Try again${error.retryAfterSeconds ? ` in ${error.retryAfterSeconds} s` : ' in a moment'}.`;
    case 503:
      return 'The database is not answering. Nothing was changed. Try again in a moment.';
    default:
      return error.problem?.detail ?? `The service answered HTTP ${error.status}.`;
  }
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
}

/** A wallet address: shortened on screen, whole for screen readers and for copying (select all). */
export function Address({ value }: { value: string }) {
  return (
    <span className={styles.address} title={value}>
      <span aria-hidden="true">
        {value.slice(0, 4)}…{value.slice(-4)}
      </span>
      <span className="visually-hidden">{value}</span>
    </span>
  );
}
