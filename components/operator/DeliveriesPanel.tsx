'use client';
// Webhook deliveries, newest first: the event, its state, attempts and the last error, and a
// button that makes a delivery due now: a failed or waiting one is retried, a delivered one sent
// again with the same webhook-id (the service's retry). One being sent has no button.
import { useCallback, useEffect, useState } from 'react';
import { Button } from '@/components/ui/Button';
import { ClaimApiError } from '@/lib/client';
import { operatorApi, type WebhookDelivery } from '@/lib/client/operator';
import styles from './console.module.css';
import { formatDateTime, useConsole } from './console-context';

const STATUS: Record<WebhookDelivery['status'], { label: string; tone: string | undefined }> = {
  pending: { label: 'Waiting to retry', tone: styles.badgeWarning },
  sending: { label: 'Sending', tone: styles.badgeWarning },
  delivered: { label: 'Delivered', tone: styles.badgeSuccess },
  failed: { label: 'Failed', tone: styles.badgeDanger },
};

export function DeliveriesPanel() {
  const { describe, announce } = useConsole();
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState<{ deliveries: WebhookDelivery[]; nextCursor: string | null } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notConfigured, setNotConfigured] = useState(false);
  const [retrying, setRetrying] = useState<string | null>(null);
  const cursor = cursors[cursors.length - 1] ?? null;

  const load = useCallback(async () => {
    try {
      setPage(await operatorApi.deliveries(cursor));
      setError(null);
    } catch (failure) {
      if (failure instanceof ClaimApiError && failure.status === 404 && failure.code !== 'pass_not_found') setNotConfigured(true);
      else setError(describe(failure));
    }
  }, [cursor, describe]);

  useEffect(() => {
    void load();
  }, [load]);

  async function retry(delivery: WebhookDelivery) {
    setRetrying(delivery.id);
    try {
      await operatorApi.retryDelivery(delivery.id);
      announce(`Delivery ${delivery.id} of ${delivery.type} is due now.`);
      await load();
    } catch (failure) {
      setError(describe(failure));
    } finally {
      setRetrying(null);
    }
  }

  const deliveries = page?.deliveries ?? [];
  return (
    <section className={styles.card} aria-labelledby="deliveries-title">
      <h2 id="deliveries-title" className={styles.cardTitle}>
        Webhook deliveries
      </h2>
      {notConfigured ? (
        <p className={styles.muted}>Webhooks are not available on this service.</p>
      ) : (
        <>
          <div className={styles.toolbar}>
            <Button variant="quiet" onClick={() => void load()}>
              Refresh
            </Button>
          </div>
          {error && (
            <p role="alert" className={styles.alert}>
              {error}
            </p>
          )}
          {page && deliveries.length === 0 && <p className={styles.muted}>No deliveries yet. Set WEBHOOK_URL to send events.</p>}
          {deliveries.length > 0 && (
            <table className={styles.table} role="table" aria-labelledby="deliveries-title">
              <thead role="rowgroup">
                <tr role="row">
                  <th role="columnheader" scope="col">
                    Event
                  </th>
                  <th role="columnheader" scope="col">
                    Status
                  </th>
                  <th role="columnheader" scope="col">
                    Attempts
                  </th>
                  <th role="columnheader" scope="col">
                    Created
                  </th>
                  <th role="columnheader" scope="col">
                    Next attempt
                  </th>
                  <th role="columnheader" scope="col">
                    Last error
                  </th>
                  <th role="columnheader" scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody role="rowgroup">
                {deliveries.map((delivery) => (
                  <tr role="row" key={delivery.id} data-delivery={delivery.id} data-status={delivery.status}>
                    <td role="cell" data-label="Event" className={styles.mono}>
                      {delivery.type}
                    </td>
                    <td role="cell" data-label="Status">
                      <span className={`${styles.badge} ${STATUS[delivery.status].tone}`}>{STATUS[delivery.status].label}</span>
                    </td>
                    <td role="cell" data-label="Attempts">
                      {delivery.attempts}
                    </td>
                    <td role="cell" data-label="Created">
                      {formatDateTime(delivery.createdAt)}
                    </td>
                    <td role="cell" data-label="Next attempt">
                      {formatDateTime(delivery.nextAttemptAt)}
                    </td>
                    <td role="cell" data-label="Last error" className={styles.errorText}>
                      {delivery.lastError ?? '—'}
                    </td>
                    <td role="cell" className={styles.rowActions}>
                      {delivery.status !== 'sending' && (
                        <Button variant="secondary" className={styles.compact} disabled={retrying === delivery.id} onClick={() => void retry(delivery)}>
                          {delivery.status === 'delivered' ? 'Send again' : 'Retry'}
                          <span className="visually-hidden">
                            {' '}
                            delivery {delivery.id} of {delivery.type}
                          </span>
                        </Button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {(cursors.length > 1 || page?.nextCursor) && (
            <nav className={styles.pager} aria-label="Pages of deliveries">
              <Button variant="secondary" className={styles.compact} disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
                Previous page
              </Button>
              <span className={styles.muted}>Page {cursors.length}</span>
              <Button
                variant="secondary"
                className={styles.compact}
                disabled={!page?.nextCursor}
                onClick={() => page?.nextCursor && setCursors([...cursors, page.nextCursor])}
              >
                Next page
              </Button>
            </nav>
          )}
        </>
      )}
    </section>
  );
}
