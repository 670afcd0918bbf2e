'use client';
// A message to every holder of a live program: what it will reach before it is sent (the active
// passes and their registered devices), then the update that carries it as a progress bar
// (devices pushed of the total, failures, rate, time left), read again every second while shown.
import { useEffect, useId, useRef, useState } from 'react';
import { Button } from '@/components/ui/Button';
import { operatorApi, type Program, type ProgramUpdate } from '@/lib/client/operator';
import styles from './console.module.css';
import { useConsole } from './console-context';

/** The contract's bound (lib/updates/updates.ts MESSAGE_MAX_LENGTH). */
const MAX_LENGTH = 250;
const POLL_MS = 1000;

export function ProgramMessage({ program, onClose }: { program: Program; onClose: () => void }) {
  const { describe, announce, changed } = useConsole();
  const [text, setText] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [updateId, setUpdateId] = useState<string | null>(null);
  const id = useId();
  const field = useRef<HTMLTextAreaElement>(null);

  useEffect(() => field.current?.focus(), []);

  async function send(event: React.FormEvent) {
    event.preventDefault();
    if (text.trim() === '') {
      setError('Write a message first.');
      return;
    }
    setSending(true);
    setError(null);
    try {
      const sent = await operatorApi.sendMessage(program.slug, text);
      setUpdateId(sent.id);
      announce(`Message sent to ${sent.passes.toLocaleString('en')} passes on ${sent.devices.toLocaleString('en')} devices.`);
      setText('');
      changed();
    } catch (failure) {
      setError(describe(failure));
    } finally {
      setSending(false);
    }
  }

  return (
    <section className={styles.card} aria-labelledby={`${id}-title`} data-testid="program-message">
      <div className={styles.cardHeading}>
        <h3 id={`${id}-title`} className={styles.cardTitle}>
          Message the holders of {program.name}
        </h3>
        <Button variant="quiet" className={styles.compact} onClick={onClose}>
          Close
        </Button>
      </div>
      <form onSubmit={send} noValidate>
        <label className={styles.field} htmlFor={`${id}-text`}>
          Message
          <textarea
            id={`${id}-text`}
            ref={field}
            className={styles.input}
            rows={3}
            maxLength={MAX_LENGTH}
            value={text}
            onChange={(event) => setText(event.target.value)}
            aria-describedby={`${id}-reach ${id}-count`}
          />
        </label>
        <p id={`${id}-count`} className={styles.hint}>
          {text.length} of {MAX_LENGTH} characters
        </p>
        <p id={`${id}-reach`} className={styles.hint} data-testid="message-reach">
          Reaches {program.active.toLocaleString('en')} active {program.active === 1 ? 'pass' : 'passes'} on {program.devices.toLocaleString('en')}{' '}
          {program.devices === 1 ? 'device' : 'devices'}: it shows on the back of each pass, and Wallet notifies the holder.
        </p>
        {error && (
          <p role="alert" className={styles.alert}>
            {error}
          </p>
        )}
        <Button type="submit" disabled={sending || program.status !== 'live'}>
          {sending ? 'Sending…' : 'Send to every holder'}
        </Button>
      </form>
      {updateId && <UpdateProgress id={updateId} />}
    </section>
  );
}

/** An update as a progress bar, read again every second until it is done. */
export function UpdateProgress({ id }: { id: string }) {
  const { describe } = useConsole();
  const [update, setUpdate] = useState<ProgramUpdate | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const read = async () => {
      try {
        const next = await operatorApi.update(id);
        if (stopped) return;
        setUpdate(next);
        setError(null);
        if (next.status === 'done') return;
      } catch (failure) {
        if (stopped) return;
        setError(describe(failure));
      }
      timer = setTimeout(read, POLL_MS);
    };
    void read();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [id, describe]);

  if (!update) return error ? <p className={styles.alert}>{error}</p> : <p className={styles.muted}>Starting…</p>;
  const reached = update.devicesPushed + update.devicesFailed;
  const total = Math.max(update.devicesTotal, reached);
  const seconds = Math.max(((update.finishedAt ? Date.parse(update.finishedAt) : Date.now()) - Date.parse(update.startedAt)) / 1000, 0.001);
  const rate = reached / seconds;
  const left = update.status === 'done' || rate === 0 ? 0 : (total - reached) / rate;
  return (
    <div className={styles.field} data-testid="update-progress" data-status={update.status}>
      <label htmlFor={`progress-${id}`}>{update.status === 'done' ? 'Done' : 'Pushing to devices…'}</label>
      <progress id={`progress-${id}`} max={total || 1} value={total ? reached : 1} style={{ width: '100%' }} />
      <p className={styles.hint} aria-live="polite">
        {update.devicesPushed.toLocaleString('en')} of {total.toLocaleString('en')} devices pushed
        {update.devicesFailed > 0 ? `, ${update.devicesFailed.toLocaleString('en')} failed` : ''} · {Math.round(rate).toLocaleString('en')} a second
        {update.status === 'done' ? '' : ` · about ${Math.ceil(left)} s left`}
      </p>
      {error && <p className={styles.alert}>{error}</p>}
    </div>
  );
}
