'use client';
// The pass link with a copy button. The link stays visible and selectable, so copying works by hand
// where the Clipboard API is refused (an embedded browser, an insecure origin).
import { useEffect, useRef, useState } from 'react';
import { Button } from './Button';
import styles from './CopyLink.module.css';
import { CheckIcon, CopyIcon } from './icons';

type CopyLinkProps = {
  value: string;
  /** The field's accessible name. */
  label: string;
  /** The button's words (the operator console copies an API key with it). */
  action?: string;
  /** What the live region says once copied. */
  copiedMessage?: string;
  /** What it says when the clipboard is refused and the field is selected instead. */
  selectedMessage?: string;
};

export function CopyLink({
  value,
  label,
  action = 'Copy link',
  copiedMessage = 'Link copied',
  selectedMessage = 'The link is selected: copy it with your keyboard or menu',
}: CopyLinkProps) {
  const [status, setStatus] = useState<'idle' | 'copied' | 'select'>('idle');
  const field = useRef<HTMLInputElement>(null);
  const reset = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(reset.current), []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setStatus('copied');
    } catch {
      field.current?.select();
      setStatus('select');
    }
    clearTimeout(reset.current);
    reset.current = setTimeout(() => setStatus('idle'), 2500);
  }

  return (
    <div className={styles.row}>
      <input
        ref={field}
        className={styles.field}
        value={value}
        readOnly
        aria-label={label}
        spellCheck={false}
        onFocus={(event) => event.currentTarget.select()}
      />
      <Button variant="secondary" className={styles.button} onClick={copy}>
        {status === 'copied' ? <CheckIcon size={18} /> : <CopyIcon size={18} />}
        {status === 'copied' ? 'Copied' : action}
      </Button>
      <span role="status" className="visually-hidden">
        {status === 'copied' ? copiedMessage : status === 'select' ? selectedMessage : ''}
      </span>
    </div>
  );
}
