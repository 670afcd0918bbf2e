'use client';
// The program editor: a new program or a saved one, its window, supply, check-in and rule, and its
// design, with the pass drawn beside it as it is typed (front and back, the placeholders filled
// from a sample wallet). Every input is checked with the API's own schemas as it is typed; what
// the API still refuses comes back as `fields` and shows at the same inputs. Loaded on demand
// (ProgramsPanel): zod and the picture are not part of the console's first load.
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { PassPicture, type PassPictureImages } from '@/components/pass-picture/PassPicture';
import { Button, Spinner } from '@/components/ui/Button';
import { ClaimApiError } from '@/lib/client';
import { operatorApi, type Program } from '@/lib/client/operator';
import { defaultDesign } from '@/lib/programs/design';
import { CHECK_IN_RULES, DEFAULT_PROGRAM } from '@/lib/programs/schema';
import { ConfirmDialog } from './ConfirmDialog';
import styles from './console.module.css';
import { useConsole } from './console-context';
import { DesignEditor } from './DesignEditor';
import { type Errors, ErrorsContext, inputId, SelectField, TextField } from './editor-fields';
import { ProgramImages } from './ProgramImages';
import { bodyOf, changeOf, checkDraft, type DesignDraft, type Draft, designDraftOf, designOf, draftOf, type FieldErrors, timeZoneWords } from './program-draft';

/** Whose pass the picture shows: a sample holder, as a pass of this program would be filled in. */
const SAMPLE = {
  publicKey: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
  serialNumber: 'SAMPLE-0001',
  claimedAt: new Date().toISOString(),
  walletType: 'Phantom',
};

const CHECK_IN_NAMES: Record<Draft['checkIn'], string> = { once: 'Once', daily: 'Once a day', unlimited: 'Every time' };

type Pending = 'publish' | 'close' | null;

export function ProgramEditor({ program, onClose, onCreated }: { program: Program | null; onClose(): void; onCreated(slug: string): void }) {
  const { describe, announce, changed } = useConsole();
  /** The program as last saved (null: not created yet). */
  const [saved, setSaved] = useState<Program | null>(program);
  const [draft, setDraft] = useState<Draft>(() => draftOf(program));
  const [touched, setTouched] = useState<Set<string>>(() => new Set());
  const [submitted, setSubmitted] = useState(false);
  /** What the API refused, by field, until that field is edited. */
  const [refused, setRefused] = useState<FieldErrors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [pending, setPending] = useState<Pending>(null);
  const [images, setImages] = useState<PassPictureImages>({});
  const heading = useRef<HTMLHeadingElement>(null);
  const summary = useRef<HTMLDivElement>(null);
  const id = useId();
  const creating = saved === null;
  const zone = useMemo(() => timeZoneWords(), []);

  // Focus moves into the editor when it opens, and to its heading again once a program is created.
  // biome-ignore lint/correctness/useExhaustiveDependencies: creating is the trigger
  useEffect(() => {
    heading.current?.focus();
  }, [creating]);

  const problems = useMemo(() => checkDraft(draft, creating), [draft, creating]);

  const errors = useMemo((): Errors => {
    const shown = (field: string) => submitted || [...touched].some((t) => field === t || field.startsWith(`${t}.`) || t.startsWith(`${field}.`));
    return {
      errorOf(field) {
        if (refused[field]) return refused[field];
        // A group's errors (a count) and the policy's inner ones show at once; inputs' once touched.
        const local = problems[field];
        if (local && (shown(field) || field.startsWith('design.fields.') || field === 'design.locations')) return local;
        if (field === 'policy') {
          const inner = Object.entries({ ...problems, ...refused }).filter(([name]) => name.startsWith('policy.'));
          if (inner.length > 0 && (shown('policy') || inner.some(([name]) => refused[name])))
            return inner.map(([name, text]) => `${name.slice(7)}: ${text}`).join('; ');
        }
        return undefined;
      },
      touch(field) {
        setTouched((previous) => (previous.has(field) ? previous : new Set(previous).add(field)));
      },
    };
  }, [problems, refused, touched, submitted]);

  /** Applies an edit of one field: it is touched, and the API's old word on it no longer stands. */
  function edit(field: string, next: (draft: Draft) => Draft) {
    setDraft(next);
    setTouched((previous) => (previous.has(field) ? previous : new Set(previous).add(field)));
    setRefused((previous) => {
      const kept = Object.fromEntries(Object.entries(previous).filter(([name]) => name !== field && !name.startsWith(`${field}.`)));
      return Object.keys(kept).length === Object.keys(previous).length ? previous : kept;
    });
  }
  const editDesign = (patch: Partial<DesignDraft>) => {
    const field = Object.keys(patch)[0] ?? '';
    edit(`design.${field}`, (d) => (d.design ? { ...d, design: { ...d.design, ...patch } } : d));
  };

  function focusFirst(fields: FieldErrors) {
    const first = Object.keys(fields)
      .map((field) => document.getElementById(inputId(field)) ?? document.getElementById(inputId(field.split('.').slice(0, -1).join('.'))))
      .find(Boolean);
    (first ?? summary.current)?.focus();
  }

  async function save(event: React.FormEvent) {
    event.preventDefault();
    if (busy) return;
    setSubmitted(true);
    setError(null);
    if (Object.keys(problems).length > 0) {
      setError('Some fields need a change: they are marked below.');
      requestAnimationFrame(() => focusFirst(problems));
      return;
    }
    const { body } = bodyOf(draft);
    setBusy(true);
    try {
      if (saved === null) {
        const created = await operatorApi.createProgram({ ...body, status: 'draft' });
        setSaved(created);
        announce(`Program ${created.name} created, as a draft: publish it to take claims.`);
        changed();
        onCreated(created.slug);
      } else {
        const change = changeOf(saved, body);
        if (Object.keys(change).length === 0) {
          announce('Nothing to save: no field changed.');
        } else {
          const updated = await operatorApi.updateProgram(saved.slug, change);
          setSaved(updated);
          announce(`Changes to ${updated.name} saved.${updated.status === 'live' && change.design ? ' Every pass of it is being updated.' : ''}`);
          changed();
        }
      }
      setSubmitted(false);
      setTouched(new Set());
    } catch (failure) {
      if (failure instanceof ClaimApiError && failure.problem?.fields?.length) {
        const fields = Object.fromEntries(failure.problem.fields.map(({ field, message }) => [field, message]));
        setRefused(fields);
        setError(`The service refused the program: ${failure.problem.fields.length === 1 ? 'one field needs' : 'some fields need'} a change.`);
        requestAnimationFrame(() => focusFirst(fields));
      } else if (failure instanceof ClaimApiError && failure.code === 'program_exists') {
        setRefused({ slug: 'is taken by another program' });
        setError(describe(failure));
        requestAnimationFrame(() => focusFirst({ slug: '' }));
      } else {
        setError(describe(failure));
      }
    } finally {
      setBusy(false);
    }
  }

  async function setStatus(status: 'live' | 'closed') {
    if (!saved) return;
    const updated = await operatorApi.updateProgram(saved.slug, { status });
    setSaved(updated);
    announce(status === 'live' ? `${updated.name} is live: its claim page takes claims.` : `${updated.name} is closed: it takes no more claims.`);
    changed();
  }

  const allErrors = Object.entries({ ...problems, ...refused });
  const design = draft.design;
  const name = draft.name || 'New program';

  return (
    <ErrorsContext.Provider value={errors}>
      <section className={styles.editor} aria-labelledby={`${id}-title`} data-editing={saved?.slug ?? 'new'}>
        <div className={styles.cardHeading}>
          <h3 id={`${id}-title`} ref={heading} tabIndex={-1} className={styles.subTitle}>
            {creating ? 'New program' : `Edit ${saved.name}`}
          </h3>
          <Button variant="quiet" className={styles.compact} onClick={onClose}>
            Close editor
          </Button>
        </div>

        {saved && (
          <div className={styles.statusBar}>
            <span>
              Status:{' '}
              <strong data-program-status={saved.status}>
                {saved.status === 'draft' ? 'Draft (only operators see it)' : saved.status === 'live' ? 'Live' : 'Closed'}
              </strong>
            </span>
            <a className={styles.link} href={saved.claimUrl} target="_blank" rel="noopener">
              Claim page<span className="visually-hidden"> of {saved.name} (opens in a new tab)</span>
            </a>
            {saved.status !== 'live' && (
              <Button className={styles.compact} onClick={() => setPending('publish')}>
                {saved.status === 'draft' ? 'Publish' : 'Reopen'}
              </Button>
            )}
            {saved.status === 'live' && (
              <Button variant="secondary" className={`${styles.compact} ${styles.dangerButton}`} onClick={() => setPending('close')}>
                Close program
              </Button>
            )}
          </div>
        )}

        <div className={styles.editorLayout}>
          <form className={styles.editorForm} onSubmit={save} noValidate aria-labelledby={`${id}-title`}>
            {error && (
              <div ref={summary} tabIndex={-1} role="alert" className={styles.alert}>
                <p>{error}</p>
                {submitted && allErrors.length > 0 && (
                  <ul className={styles.errorList}>
                    {allErrors.map(([field, message]) => (
                      <li key={field}>
                        <a href={`#${inputId(field)}`}>
                          {field}: {message}
                        </a>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            )}

            <fieldset className={styles.fieldset}>
              <legend className={styles.legend}>Program</legend>
              <div className={styles.formGrid}>
                <TextField field="name" label="Name" value={draft.name} maxLength={80} onChange={(value) => edit('name', (d) => ({ ...d, name: value }))} />
                <TextField
                  field="slug"
                  label="Slug"
                  mono
                  value={draft.slug}
                  disabled={!creating}
                  hint={creating ? 'Its claim page: /p/<slug>. Lowercase letters, digits and hyphens; fixed once created.' : 'Fixed once created.'}
                  onChange={(value) => edit('slug', (d) => ({ ...d, slug: value }))}
                />
              </div>
              <div className={styles.formGrid}>
                <TextField
                  field="opensAt"
                  label="Opens"
                  type="datetime-local"
                  hint={`Empty: open now. Your time zone: ${zone}.`}
                  value={draft.opensAt}
                  onChange={(value) => edit('opensAt', (d) => ({ ...d, opensAt: value }))}
                />
                <TextField
                  field="closesAt"
                  label="Closes"
                  type="datetime-local"
                  hint={`Empty: never. Your time zone: ${zone}.`}
                  value={draft.closesAt}
                  onChange={(value) => edit('closesAt', (d) => ({ ...d, closesAt: value }))}
                />
                <TextField
                  field="supply"
                  label="Supply"
                  inputMode="numeric"
                  hint="At most this many passes, ever. Empty: no limit."
                  value={draft.supply}
                  onChange={(value) => edit('supply', (d) => ({ ...d, supply: value }))}
                />
                <SelectField
                  field="checkIn"
                  label="Check-in"
                  value={draft.checkIn}
                  options={CHECK_IN_RULES}
                  names={CHECK_IN_NAMES}
                  hint="How often one pass is admitted."
                  onChange={(checkIn) => edit('checkIn', (d) => ({ ...d, checkIn }))}
                />
              </div>
              <TextField
                field="policy"
                label="Who may claim (policy)"
                multiline
                mono
                hint={`A CLAIM_POLICY rule as JSON, such as {"token": {"mint": "…", "minAmount": "1"}}. Empty: ${saved?.slug === DEFAULT_PROGRAM ? 'CLAIM_POLICY' : 'anyone'}.`}
                value={draft.policy}
                onChange={(value) => edit('policy', (d) => ({ ...d, policy: value }))}
              />
            </fieldset>

            {design ? (
              <DesignEditor design={design} onChange={editDesign} />
            ) : (
              <fieldset className={styles.fieldset}>
                <legend className={styles.legend}>Design</legend>
                <p className={styles.muted}>This program’s passes use the wallet brands’ designs (each wallet its own colours and mark).</p>
                <div>
                  <Button
                    variant="secondary"
                    className={styles.compact}
                    onClick={() => edit('design', (d) => ({ ...d, design: designDraftOf(defaultDesign()) }))}
                  >
                    Give it a design of its own
                  </Button>
                </div>
              </fieldset>
            )}

            {saved ? (
              <ProgramImages slug={saved.slug} onImages={setImages} />
            ) : (
              <p className={styles.hint}>Images (logo, icon, strip, thumbnail, background) can be added once the program is created.</p>
            )}

            <div className={styles.toolbar}>
              <Button type="submit" className={styles.compact} disabled={busy}>
                {busy && <Spinner />}
                {creating ? 'Create program' : 'Save changes'}
              </Button>
              <Button variant="quiet" className={styles.compact} onClick={onClose}>
                Cancel
              </Button>
            </div>
          </form>

          <aside className={styles.picture} aria-labelledby={`${id}-picture`}>
            <h4 id={`${id}-picture`} className={styles.subTitle}>
              Live picture
            </h4>
            <p className={styles.hint}>
              Filled in for a sample holder: {SAMPLE.publicKey.slice(0, 4)}…{SAMPLE.publicKey.slice(-4)}, Phantom.
            </p>
            {design ? (
              <PassPicture design={designOf(design)} name={name} images={images} sample={SAMPLE} side="both" />
            ) : (
              <p className={styles.muted}>Each wallet brand’s own design.</p>
            )}
          </aside>
        </div>

        {pending === 'publish' && saved && (
          <ConfirmDialog
            title={`${saved.status === 'draft' ? 'Publish' : 'Reopen'} ${saved.name}?`}
            confirmLabel={saved.status === 'draft' ? 'Publish' : 'Reopen'}
            describeError={describe}
            onClose={() => setPending(null)}
            onConfirm={() => setStatus('live')}
          >
            <p>Its claim page takes claims{saved.opensAt ? ' from when it opens' : ' from now'}, from anyone its rule lets in.</p>
          </ConfirmDialog>
        )}
        {pending === 'close' && saved && (
          <ConfirmDialog
            title={`Close ${saved.name}?`}
            confirmLabel="Close program"
            tone="danger"
            describeError={describe}
            onClose={() => setPending(null)}
            onConfirm={() => setStatus('closed')}
          >
            <p>It takes no more claims. The passes already issued stay valid.</p>
          </ConfirmDialog>
        )}
      </section>
    </ErrorsContext.Provider>
  );
}
