'use client';
// A confirmation as a native modal <dialog>: the browser traps focus in it, Escape cancels, and
// focus returns to the button that opened it. An optional text field (a void's reason) is required
// when asked for. The action runs here so that its failure is shown where the operator is looking.
import { type ReactNode, useEffect, useId, useRef, useState } from 'react';
import { Button, Spinner } from '@/components/ui/Button';
import styles from './console.module.css';

export type ConfirmDialogProps = {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  tone?: 'danger' | 'primary';
  /** A required text field (e.g. the reason for voiding). */
  field?: { label: string; hint?: string; maxLength?: number };
  onConfirm(value: string): Promise<void>;
  onClose(): void;
  /** The words for a failure of onConfirm. */
  describeError(error: unknown): string;
};

export function ConfirmDialog({ title, children, confirmLabel, tone = 'primary', field, onConfirm, onClose, describeError }: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const id = useId();

  useEffect(() => {
    const element = dialog.current;
    // The browser gives focus back on close(), but not when the dialog leaves the page with its
    // component, as it does here: give it back to the control that opened it, if still there.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (element && !element.open) element.showModal();
    return () => {
      element?.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);

  async function submit(event: React.FormEvent) {
    event.preventDefault();
    if (busy) return;
    if (field && !value.trim()) {
      setError(`${field.label} is required.`);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await onConfirm(value.trim());
      onClose();
    } catch (failure) {
      setError(describeError(failure));
      setBusy(false);
    }
  }

  return (
    <dialog
      ref={dialog}
      className={styles.dialog}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
    >
      <form onSubmit={submit} className={styles.dialogForm} noValidate>
        <h2 id={`${id}-title`} className={styles.cardTitle}>
          {title}
        </h2>
        <div id={`${id}-text`} className={styles.dialogText}>
          {children}
        </div>
        {field && (
          <div className={styles.field}>
            <label htmlFor={`${id}-field`}>{field.label}</label>
            <input
              id={`${id}-field`}
              className={styles.input}
              value={value}
              maxLength={field.maxLength}
              required
              autoFocus
              autoComplete="off"
              aria-invalid={error && !value.trim() ? true : undefined}
              aria-describedby={field.hint ? `${id}-hint` : undefined}
              onChange={(event) => setValue(event.target.value)}
            />
            {field.hint && (
              <span id={`${id}-hint`} className={styles.hint}>
                {field.hint}
              </span>
            )}
          </div>
        )}
        {error && (
          <p role="alert" className={styles.alert}>
            {error}
          </p>
        )}
        <div className={styles.dialogActions}>
          <Button variant="secondary" onClick={onClose} disabled={busy} className={styles.compact}>
            Cancel
          </Button>
          <Button type="submit" className={`${styles.compact} ${tone === 'danger' ? styles.dangerButton : ''}`} disabled={busy}>
            {busy && <Spinner />}
            {confirmLabel}
          </Button>
        </div>
      </form>
    </dialog>
  );
}
