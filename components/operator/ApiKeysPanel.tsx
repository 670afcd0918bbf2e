'use client';
// API keys for automation, and scan keys for the door: create one (its secret is shown once, here,
// with a copy button; the service keeps only its hash), list them with their scope, revoke one
// behind a confirmation.
import { useCallback, useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/Button';
import { CopyLink } from '@/components/ui/CopyLink';
import { type ApiKey, operatorApi } from '@/lib/client/operator';
import { ConfirmDialog } from './ConfirmDialog';
import styles from './console.module.css';
import { Address, formatDateTime, useConsole } from './console-context';

const NAME_MAX = 100;

export function ApiKeysPanel() {
  const { describe, announce } = useConsole();
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [scanOnly, setScanOnly] = useState(false);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const createdHeading = useRef<HTMLHeadingElement>(null);

  const load = useCallback(async () => {
    try {
      setKeys(await operatorApi.apiKeys());
      setError(null);
    } catch (failure) {
      setError(describe(failure));
    }
  }, [describe]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    if (created) createdHeading.current?.focus();
  }, [created]);

  async function create(event: React.FormEvent) {
    event.preventDefault();
    if (creating) return;
    setCreating(true);
    try {
      const result = await operatorApi.createApiKey(name.trim(), scanOnly ? 'scan' : 'operator');
      setCreated({ name: name.trim(), key: result.key });
      setName('');
      setScanOnly(false);
      await load();
    } catch (failure) {
      setError(describe(failure));
    } finally {
      setCreating(false);
    }
  }

  const live = keys ?? []; // the service lists only the keys not revoked

  return (
    <section className={styles.card} aria-labelledby="keys-title">
      <h2 id="keys-title" className={styles.cardTitle}>
        API keys
      </h2>
      <p className={styles.muted}>
        For scripts and other services: send one as <code>Authorization: Bearer &lt;key&gt;</code>. A key works until it is revoked. Keys are created here,
        signed in: a key cannot create another. A scan key, for the door, can only check passes in (and list programs).
      </p>
      <form className={styles.inlineForm} onSubmit={create}>
        <div className={styles.field}>
          <label htmlFor="key-name">Name (optional)</label>
          <input
            id="key-name"
            className={styles.input}
            value={name}
            maxLength={NAME_MAX}
            autoComplete="off"
            onChange={(event) => setName(event.target.value)}
          />
        </div>
        <label className={styles.checkbox}>
          <input type="checkbox" checked={scanOnly} onChange={(event) => setScanOnly(event.target.checked)} /> Scan only (for the door)
        </label>
        <Button type="submit" className={styles.compact} disabled={creating}>
          Create API key
        </Button>
      </form>

      {created && (
        <div className={styles.secret} data-testid="new-api-key">
          <h3 ref={createdHeading} tabIndex={-1} className={styles.subTitle}>
            Your new API key{created.name ? `: ${created.name}` : ''}
          </h3>
          <p>Copy it now: it is shown only this once, and the service keeps no copy it could show again.</p>
          <CopyLink
            value={created.key}
            label="New API key"
            action="Copy key"
            copiedMessage="API key copied"
            selectedMessage="The key is selected: copy it with your keyboard or menu"
          />
          <div className={styles.secretActions}>
            <Button variant="quiet" onClick={() => setCreated(null)}>
              I have saved it
            </Button>
          </div>
        </div>
      )}

      {error && (
        <p role="alert" className={styles.alert}>
          {error}
        </p>
      )}

      {keys && live.length === 0 && <p className={styles.muted}>No API keys.</p>}
      {live.length > 0 && (
        <ul className={styles.keyList} aria-label="API keys">
          {live.map((key) => (
            <li key={key.id} className={styles.keyItem} data-key-id={key.id}>
              <div>
                <strong>{key.name || 'Unnamed key'}</strong>{' '}
                <span className={styles.badge} data-scope={key.scope}>
                  {key.scope === 'scan' ? 'scan only' : 'full operator'}
                </span>
                <span className={styles.muted}>
                  {' '}
                  created {formatDateTime(key.createdAt)} by <Address value={key.createdBy} />,{' '}
                  {key.lastUsedAt ? `last used ${formatDateTime(key.lastUsedAt)}` : 'never used'}
                </span>
              </div>
              <Button variant="secondary" className={styles.compact} onClick={() => setRevoking(key)}>
                Revoke<span className="visually-hidden"> {key.name || 'unnamed key'}</span>
              </Button>
            </li>
          ))}
        </ul>
      )}

      {revoking && (
        <ConfirmDialog
          title="Revoke this API key?"
          confirmLabel="Revoke key"
          tone="danger"
          describeError={describe}
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await operatorApi.revokeApiKey(revoking.id);
            announce(`API key ${revoking.name || ''} revoked.`.replace('  ', ' '));
            if (created) setCreated(null);
            await load();
          }}
        >
          <p>Anything that uses “{revoking.name || 'Unnamed key'}” stops working at once. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
