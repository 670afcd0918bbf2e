'use client';
// The pass link with a copy button. The link stays visible and selectable, so copying works by hand
// where the Clipboard API is refused (an embedded browser, an insecure origin).
import { useEffect, useRef, useState } from 'react';
import { Button } from './Button';
import { CheckIcon, CopyIcon } from './icons';
import styles from './CopyLink.module.css';

export function CopyLink({ value, label }: { value: string; label: string }) {
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
        {status === 'copied' ? 'Copied' : 'Copy link'}
      </Button>
      <span role="status" className="visually-hidden">
        {status === 'copied' ? 'Link copied' : status === 'select' ? 'The link is selected: copy it with your keyboard or menu' : ''}
      </span>
    </div>
  );
}
