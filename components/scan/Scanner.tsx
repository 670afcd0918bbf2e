'use client';
// The door at work: the camera reads passes continuously, each answer fills the screen (green:
// let them in; red: do not, and why; amber: the pass was not checked) with a beep and a
// vibration, and the camera is ready for the next pass at once. The answer stays for a moment
// (a tap clears it sooner; focused, it stays until it loses focus), and in a line under the
// camera until the next. A serial number can
// be typed instead; the admissions on this device are counted.
import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import { Button, Spinner } from '@/components/ui/Button';
import { AlertIcon, CheckIcon } from '@/components/ui/icons';
import { ClaimApiError } from '@/lib/client';
import type { CheckInInput, DoorApi, DoorProgram } from '@/lib/client/check-in';
import { readAdmissions, saveAdmissions } from './admissions';
import { type AnswerView, describeAnswer, describeFailure } from './door-words';
import { beep, unlockSound, vibrate } from './feedback';
import styles from './scan.module.css';
import { type CameraState, useCameraScanner } from './use-camera-scanner';

/** How long an answer covers the screen: long enough to read across a table, short enough for a queue. */
const SHOWN_MS = { admitted: 1000, refused: 2200, problem: 2200 } as const;

const CAMERA_WORDS: Record<CameraState['kind'], string> = {
  starting: 'Starting the camera…',
  'loading-reader': 'Loading the barcode reader…',
  scanning: 'Hold the pass’s code in the frame.',
  paused: 'The camera is paused while the page is hidden.',
  failed: '',
};

const CAMERA_PROBLEMS = {
  denied: 'The camera is blocked for this page. Allow it in the browser’s site settings, then try again, or type the serial below.',
  'no-camera': 'No camera could be opened (none, or another app is using it). Type the serial below.',
  unsupported: 'This browser cannot use the camera here (it needs https). Type the serial below.',
  'reader-failed': 'The barcode reader could not load. Check the connection and try again, or type the serial below.',
  failed: 'The camera could not start. Try again, or type the serial below.',
} as const;

type Props = {
  api: DoorApi;
  program: DoorProgram;
  /** The credential was refused (401): back to signing in. */
  onUnauthorized(): void;
};

export function Scanner({ api, program, onUnauthorized }: Props) {
  const [answer, setAnswer] = useState<(AnswerView & { id: number }) | null>(null);
  const [last, setLast] = useState<AnswerView | null>(null);
  const [count, setCount] = useState(0);
  const [serial, setSerial] = useState('');
  const [typing, setTyping] = useState<'idle' | 'checking'>('idle');
  const answers = useRef(0);
  const hide = useRef<ReturnType<typeof setTimeout>>(undefined);
  const answerButton = useRef<HTMLButtonElement>(null);

  useEffect(() => setCount(readAdmissions(program.slug)), [program.slug]);
  useEffect(() => () => clearTimeout(hide.current), []);

  const show = useCallback(
    (view: AnswerView) => {
      const id = ++answers.current;
      setAnswer({ ...view, id });
      setLast(view);
      beep(view.tone === 'admitted');
      vibrate(view.tone === 'admitted');
      if (view.tone === 'admitted') {
        setCount((previous) => {
          saveAdmissions(program.slug, previous + 1);
          return previous + 1;
        });
      }
      clearTimeout(hide.current);
      hide.current = setTimeout(() => {
        // An answer someone has focused (a keyboard, a screen reader) stays until they move on.
        if (document.activeElement === answerButton.current) return;
        setAnswer((current) => (current?.id === id ? null : current));
      }, SHOWN_MS[view.tone]);
    },
    [program.slug],
  );

  const check = useCallback(
    async (input: CheckInInput) => {
      try {
        show(describeAnswer(await api.checkIn(input, program.slug), program.name));
      } catch (error) {
        if (error instanceof ClaimApiError && error.status === 401) onUnauthorized();
        else show(describeFailure(error));
      }
    },
    [api, program, show, onUnauthorized],
  );

  const camera = useCameraScanner(useCallback((code: string) => check({ code }), [check]));

  async function submitSerial(event: FormEvent) {
    event.preventDefault();
    unlockSound();
    const serialNumber = serial.trim();
    if (!serialNumber || typing === 'checking') return;
    setTyping('checking');
    await check({ serialNumber });
    setTyping('idle');
    setSerial('');
  }

  const { state } = camera;
  return (
    <div className={styles.scanner} data-camera={state.kind} data-reader={state.kind === 'scanning' ? state.reader : undefined}>
      {/* The picture is only for aiming; the line under it says what the camera is doing. */}
      <div className={styles.viewfinder} aria-hidden="true">
        <video ref={camera.video} className={styles.video} muted playsInline autoPlay />
        <span className={styles.frame} />
      </div>
      <p className={styles.cameraStatus} data-problem={state.kind === 'failed' ? state.problem : undefined}>
        {state.kind === 'failed' ? CAMERA_PROBLEMS[state.problem] : CAMERA_WORDS[state.kind]}
        {(state.kind === 'starting' || state.kind === 'loading-reader') && <Spinner />}
      </p>
      {state.kind === 'failed' && state.problem !== 'unsupported' && (
        <Button variant="secondary" onClick={camera.retry}>
          Try the camera again
        </Button>
      )}

      <dl className={styles.tally}>
        <div className={styles.tallyItem} data-count={count}>
          <dt>Admitted on this device</dt>
          <dd>{count}</dd>
        </div>
        <div className={styles.tallyItem} data-last={last?.reason}>
          <dt>Last scan</dt>
          <dd>
            {last ? (
              <>
                <span className={styles.lastTitle} data-tone={last.tone}>
                  {last.title}
                </span>
                {last.holder && <span className={styles.lastHolder}> · {last.holder}</span>}
              </>
            ) : (
              '—'
            )}
          </dd>
        </div>
      </dl>

      <form className={styles.serialForm} onSubmit={(event) => void submitSerial(event)}>
        <label htmlFor="door-serial" className={styles.serialLabel}>
          Type a serial number
          <span className={styles.hint}>Printed on the back of the pass, for a code the camera cannot read.</span>
        </label>
        <div className={styles.serialRow}>
          <input
            id="door-serial"
            className={styles.input}
            value={serial}
            onChange={(event) => setSerial(event.target.value)}
            autoComplete="off"
            autoCapitalize="off"
            autoCorrect="off"
            spellCheck={false}
            enterKeyHint="go"
            maxLength={100}
          />
          <Button type="submit" className={styles.serialButton} disabled={!serial.trim() || typing === 'checking'}>
            {typing === 'checking' ? <Spinner /> : null}
            Check in
          </Button>
        </div>
      </form>

      {/* Screen readers hear each answer; the screen shows it below, full-screen. */}
      <p className="visually-hidden" aria-live="assertive" aria-atomic="true">
        {last ? `${last.title}. ${last.detail}${last.holderFull ? ` Holder ${last.holderFull}.` : ''}` : ''}
      </p>

      {answer && (
        <button
          type="button"
          key={answer.id}
          className={styles.answer}
          data-tone={answer.tone}
          data-reason={answer.reason}
          ref={answerButton}
          onClick={() => setAnswer(null)}
          onBlur={() => setAnswer(null)}
          aria-label={`${answer.title}. Tap to close.`}
        >
          <span className={styles.answerIcon} aria-hidden="true">
            {answer.tone === 'admitted' ? <CheckIcon size={72} /> : <AlertIcon size={72} />}
          </span>
          <span className={styles.answerTitle}>{answer.title}</span>
          <span className={styles.answerDetail}>{answer.detail}</span>
          {answer.holder && (
            <span className={styles.answerFact}>
              Holder <span className={styles.answerMono}>{answer.holder}</span>
            </span>
          )}
          {answer.firstCheckIn && <span className={styles.answerFact}>First checked in {answer.firstCheckIn}</span>}
          <span className={styles.answerHint}>Tap to scan the next pass</span>
        </button>
      )}
    </div>
  );
}
