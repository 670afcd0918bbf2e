'use client';
// The passes: a search (address, serial, status), the list newest first, paging by the service's
// cursor, and void / restore behind a confirmation (a void needs a reason). On a phone each row is
// a card; the table keeps its roles, so a screen reader still reads it as a table.
import { useCallback, useEffect, useState } from 'react';
import { Button } from '@/components/ui/Button';
import { type OperatorPass, operatorApi, type PassQuery, type PassStatus } from '@/lib/client/operator';
import { ConfirmDialog } from './ConfirmDialog';
import styles from './console.module.css';
import { Address, formatDateTime, useConsole } from './console-context';
import { ProgramSelect } from './ProgramSelect';

type Search = { publicKey: string; serial: string; status: PassStatus | ''; program: string };
const EMPTY: Search = { publicKey: '', serial: '', status: '', program: '' };

/** A screenful; the service allows up to 200 a page. */
export const PAGE_SIZE = 25;

/** Void reasons are short notes for other operators (and the webhook's `reason`). */
const REASON_MAX = 200;

type Pending = { kind: 'void' | 'restore'; pass: OperatorPass };

export function PassesPanel() {
  const { describe, announce, changed, version } = useConsole();
  const [form, setForm] = useState<Search>(EMPTY);
  const [search, setSearch] = useState<Search>(EMPTY);
  /** The cursors of the pages before this one (for "Previous"), and this page's. */
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<{ passes: OperatorPass[]; nextCursor: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [pending, setPending] = useState<Pending | null>(null);
  const cursor = cursors[cursors.length - 1] ?? null;

  const load = useCallback(
    async (query: PassQuery) => {
      setLoading(true);
      try {
        setPage(await operatorApi.passes({ ...query, limit: PAGE_SIZE }));
        setError(null);
      } catch (failure) {
        // No rows from another page or search under this one's heading.
        setPage(null);
        setError(describe(failure));
      } finally {
        setLoading(false);
      }
    },
    [describe],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: version is the reload trigger (it changes after an operator action)
  useEffect(() => {
    void load({ ...search, cursor });
  }, [load, search, cursor, version]);

  function submit(event: React.FormEvent) {
    event.preventDefault();
    setSearch({ publicKey: form.publicKey.trim(), serial: form.serial.trim(), status: form.status, program: form.program });
    setCursors([null]);
  }

  function clear() {
    setForm(EMPTY);
    setSearch(EMPTY);
    setCursors([null]);
  }

  const filtered = Boolean(search.publicKey || search.serial || search.status || search.program);
  const passes = page?.passes ?? [];

  return (
    <section className={styles.card} aria-labelledby="passes-title">
      <h2 id="passes-title" className={styles.cardTitle}>
        Passes
      </h2>
      {/* biome-ignore lint/a11y/useSemanticElements: role="search" is the same landmark as <search>, in every browser */}
      <form role="search" aria-label="Passes" className={styles.searchForm} onSubmit={submit}>
        <div className={styles.field}>
          <label htmlFor="search-address">Wallet address</label>
          <input
            id="search-address"
            className={styles.input}
            value={form.publicKey}
            onChange={(event) => setForm({ ...form, publicKey: event.target.value })}
            autoComplete="off"
            spellCheck={false}
          />
        </div>
        <div className={styles.field}>
          <label htmlFor="search-serial">Serial number</label>
          <input
            id="search-serial"
            className={styles.input}
            value={form.serial}
            onChange={(event) => setForm({ ...form, serial: event.target.value })}
            autoComplete="off"
            spellCheck={false}
          />
        </div>
        <div className={styles.field}>
          <label htmlFor="search-status">Status</label>
          <select
            id="search-status"
            className={styles.input}
            value={form.status}
            onChange={(event) => setForm({ ...form, status: event.target.value as PassStatus | '' })}
          >
            <option value="">Any</option>
            <option value="active">Active</option>
            <option value="voided">Voided</option>
          </select>
        </div>
        <ProgramSelect id="search-program" value={form.program} onChange={(program) => setForm({ ...form, program })} />
        <div className={styles.searchActions}>
          <Button type="submit" className={styles.compact}>
            Search
          </Button>
          {filtered && (
            <Button variant="quiet" onClick={clear}>
              Clear
            </Button>
          )}
        </div>
      </form>

      {error && (
        <p role="alert" className={styles.alert}>
          {error}
        </p>
      )}

      <p role="status" className={styles.muted} aria-live="polite">
        {loading
          ? 'Loading passes…'
          : !page
            ? ''
            : passes.length === 0
              ? filtered
                ? 'No pass matches this search.'
                : 'No passes yet.'
              : `${passes.length} pass${passes.length === 1 ? '' : 'es'} on this page`}
      </p>

      {passes.length > 0 && (
        <table className={styles.table} role="table" aria-labelledby="passes-title" aria-busy={loading}>
          <thead role="rowgroup">
            <tr role="row">
              <th role="columnheader" scope="col">
                Serial
              </th>
              <th role="columnheader" scope="col">
                Wallet
              </th>
              <th role="columnheader" scope="col">
                Type
              </th>
              <th role="columnheader" scope="col">
                Claimed
              </th>
              <th role="columnheader" scope="col">
                Devices
              </th>
              <th role="columnheader" scope="col">
                Status
              </th>
              <th role="columnheader" scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody role="rowgroup">
            {passes.map((pass) => (
              <tr role="row" key={pass.serialNumber} data-serial={pass.serialNumber} data-status={pass.status}>
                <td role="cell" data-label="Serial" className={styles.mono}>
                  {pass.serialNumber}
                </td>
                <td role="cell" data-label="Wallet">
                  <Address value={pass.publicKey} />
                </td>
                <td role="cell" data-label="Type">
                  {pass.walletType}
                </td>
                <td role="cell" data-label="Claimed">
                  {formatDateTime(pass.claimedAt)}
                </td>
                <td role="cell" data-label="Devices">
                  {pass.devices}
                </td>
                <td role="cell" data-label="Status">
                  <span className={`${styles.badge} ${pass.status === 'voided' ? styles.badgeDanger : styles.badgeSuccess}`}>
                    {pass.status === 'voided' ? 'Voided' : 'Active'}
                  </span>
                  {pass.status === 'voided' && pass.voidReason && <span className={styles.reason}>{pass.voidReason}</span>}
                  {pass.expirationDate && (
                    <span className={styles.reason}>
                      {Date.parse(pass.expirationDate) <= Date.now() ? 'Expired' : 'Expires'} {formatDateTime(pass.expirationDate)}
                    </span>
                  )}
                </td>
                <td role="cell" className={styles.rowActions}>
                  {pass.status === 'active' ? (
                    <Button variant="secondary" className={styles.compact} onClick={() => setPending({ kind: 'void', pass })}>
                      Void<span className="visually-hidden"> pass {pass.serialNumber}</span>
                    </Button>
                  ) : (
                    <Button variant="secondary" className={styles.compact} onClick={() => setPending({ kind: 'restore', pass })}>
                      Restore<span className="visually-hidden"> pass {pass.serialNumber}</span>
                    </Button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {(cursors.length > 1 || page?.nextCursor) && (
        <nav className={styles.pager} aria-label="Pages of passes">
          <Button variant="secondary" className={styles.compact} disabled={cursors.length <= 1 || loading} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous page
          </Button>
          <span className={styles.muted}>Page {cursors.length}</span>
          <Button
            variant="secondary"
            className={styles.compact}
            disabled={!page?.nextCursor || loading}
            onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])}
          >
            Next page
          </Button>
        </nav>
      )}

      {pending?.kind === 'void' && (
        <ConfirmDialog
          title="Void this pass?"
          confirmLabel="Void pass"
          tone="danger"
          field={{ label: 'Reason', hint: 'Shown to other operators and sent with the pass.voided webhook.', maxLength: REASON_MAX }}
          describeError={describe}
          onClose={() => setPending(null)}
          onConfirm={async (reason) => {
            await operatorApi.voidPass(pending.pass.serialNumber, reason);
            announce(`Pass ${pending.pass.serialNumber} voided.`);
            changed();
          }}
        >
          <p>
            The pass <span className={styles.mono}>{pending.pass.serialNumber}</span> of <Address value={pending.pass.publicKey} /> stops being valid: the
            phones that hold it are told, and the scanner check shows it as voided. You can restore it later.
          </p>
        </ConfirmDialog>
      )}
      {pending?.kind === 'restore' && (
        <ConfirmDialog
          title="Restore this pass?"
          confirmLabel="Restore pass"
          describeError={describe}
          onClose={() => setPending(null)}
          onConfirm={async () => {
            await operatorApi.restorePass(pending.pass.serialNumber);
            announce(`Pass ${pending.pass.serialNumber} restored.`);
            changed();
          }}
        >
          <p>
            The pass <span className={styles.mono}>{pending.pass.serialNumber}</span> becomes valid again
            {pending.pass.voidReason ? ` (it was voided: ${pending.pass.voidReason})` : ''}. The phones that hold it are told.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
