'use client';
// The program editor: a new program or a saved one, its window, supply, check-in and rule, and its
// design, with the pass drawn beside it as it is typed (front and back, the placeholders filled
// from a sample wallet). Every input is checked with the API's own schemas as it is typed; what
// the API still refuses comes back as `fields` and shows at the same inputs. Loaded on demand
// (ProgramsPanel): zod and the picture are not part of the console's first load.
import { createContext, useContext, useEffect, useId, useMemo, useRef, useState } from 'react';
import { PassPicture, type PassPictureImages } from '@/components/pass-picture/PassPicture';
import { Button, Spinner } from '@/components/ui/Button';
import { ClaimApiError } from '@/lib/client';
import { operatorApi, type Program } from '@/lib/client/operator';
import { defaultDesign } from '@/lib/programs/design';
import {
  BARCODE_FORMATS,
  CHECK_IN_RULES,
  DEFAULT_PROGRAM,
  FIELD_GROUPS,
  FIELD_LIMITS,
  type FieldGroup,
  PASS_STYLES,
  PLACEHOLDERS,
} from '@/lib/programs/schema';
import { ConfirmDialog } from './ConfirmDialog';
import styles from './console.module.css';
import { useConsole } from './console-context';
import { ProgramImages } from './ProgramImages';
import {
  bodyOf,
  changeOf,
  checkDraft,
  type DesignDraft,
  type Draft,
  designDraftOf,
  designOf,
  draftOf,
  type FieldErrors,
  type FieldRow,
  rowId,
  timeZoneWords,
} from './program-draft';

/** Whose pass the picture shows: a sample holder, as a pass of this program would be filled in. */
const SAMPLE = {
  publicKey: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
  serialNumber: 'SAMPLE-0001',
  claimedAt: new Date().toISOString(),
  walletType: 'Phantom',
};

const STYLE_NAMES: Record<DesignDraft['style'], string> = { generic: 'Generic', storeCard: 'Store card', eventTicket: 'Event ticket', coupon: 'Coupon' };
const BARCODE_NAMES: Record<DesignDraft['barcode'], string> = { qr: 'QR code', pdf417: 'PDF417', aztec: 'Aztec', code128: 'Code 128' };
const CHECK_IN_NAMES: Record<Draft['checkIn'], string> = { once: 'Once', daily: 'Once a day', unlimited: 'Every time' };
const GROUP_NAMES: Record<FieldGroup, string> = {
  header: 'Header fields',
  primary: 'Primary fields',
  secondary: 'Secondary fields',
  auxiliary: 'Auxiliary fields',
  back: 'Back fields',
};
const COLOURS = [
  { name: 'backgroundColor', label: 'Background colour' },
  { name: 'foregroundColor', label: 'Text colour' },
  { name: 'labelColor', label: 'Label colour' },
] as const;

/** The input of an API field name: "design.fields.primary.0.value" → "pe-design-fields-primary-0-value". */
export const inputId = (field: string) => `pe-${field.replaceAll('.', '-')}`;

type Errors = { errorOf(field: string): string | undefined; touch(field: string): void };
const ErrorsContext = createContext<Errors>({ errorOf: () => undefined, touch: () => {} });

/** An error under its input, named by the input's aria-describedby. */
function FieldError({ field }: { field: string }) {
  const message = useContext(ErrorsContext).errorOf(field);
  if (!message) return null;
  return (
    <span id={`${inputId(field)}-error`} className={styles.fieldError}>
      {message}
    </span>
  );
}

/** The attributes that tie an input to its label's field name, its hint and its error. */
function useDescribed(field: string, hint?: string) {
  const errors = useContext(ErrorsContext);
  const error = errors.errorOf(field);
  const id = inputId(field);
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    id,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy || undefined,
    onBlur: () => errors.touch(field),
  } as const;
}

type TextProps = {
  field: string;
  label: string;
  value: string;
  onChange(value: string): void;
  hint?: string;
  type?: 'text' | 'datetime-local' | 'number';
  inputMode?: 'decimal' | 'numeric';
  multiline?: boolean;
  mono?: boolean;
  maxLength?: number;
  disabled?: boolean;
  inputRef?: React.Ref<HTMLInputElement & HTMLTextAreaElement>;
};

function TextField({ field, label, value, onChange, hint, type = 'text', inputMode, multiline, mono, maxLength, disabled, inputRef }: TextProps) {
  const described = useDescribed(field, hint);
  const common = {
    ...described,
    className: `${styles.input} ${mono ? styles.monoInput : ''}`,
    value,
    disabled,
    maxLength,
    autoComplete: 'off',
    spellCheck: false,
    ref: inputRef,
  };
  return (
    <div className={styles.field}>
      <label htmlFor={described.id}>{label}</label>
      {multiline ? (
        <textarea {...common} rows={mono ? 6 : 3} onChange={(event) => onChange(event.target.value)} />
      ) : (
        <input {...common} type={type} inputMode={inputMode} onChange={(event) => onChange(event.target.value)} />
      )}
      {hint && (
        <span id={`${described.id}-hint`} className={styles.hint}>
          {hint}
        </span>
      )}
      <FieldError field={field} />
    </div>
  );
}

function SelectField<T extends string>({
  field,
  label,
  value,
  options,
  names,
  onChange,
  hint,
}: {
  field: string;
  label: string;
  value: T;
  options: readonly T[];
  names: Record<T, string>;
  onChange(value: T): void;
  hint?: string;
}) {
  const described = useDescribed(field, hint);
  return (
    <div className={styles.field}>
      <label htmlFor={described.id}>{label}</label>
      <select {...described} className={styles.input} value={value} onChange={(event) => onChange(event.target.value as T)}>
        {options.map((option) => (
          <option key={option} value={option}>
            {names[option]}
          </option>
        ))}
      </select>
      {hint && (
        <span id={`${described.id}-hint`} className={styles.hint}>
          {hint}
        </span>
      )}
      <FieldError field={field} />
    </div>
  );
}

function ColourField({ field, label, value, onChange }: { field: string; label: string; value: string; onChange(value: string): void }) {
  const described = useDescribed(field);
  const valid = /^#[0-9a-fA-F]{6}$/.test(value);
  return (
    <div className={styles.field}>
      <label htmlFor={described.id}>{label}</label>
      <span className={styles.colourRow}>
        <input
          type="color"
          className={styles.colourSwatch}
          aria-label={`${label}: pick`}
          // The picker only takes a whole #rrggbb: while the text is half typed it keeps the last good one.
          value={valid ? value.toLowerCase() : '#000000'}
          onChange={(event) => onChange(event.target.value)}
        />
        <input
          {...described}
          className={`${styles.input} ${styles.monoInput}`}
          value={value}
          maxLength={7}
          spellCheck={false}
          autoComplete="off"
          onChange={(event) => onChange(event.target.value.trim())}
        />
      </span>
      <FieldError field={field} />
    </div>
  );
}

/** One group's rows of key, label and value: added, removed and moved within the style's count. */
function FieldGroupEditor({
  group,
  rows,
  limit,
  full,
  onChange,
}: {
  group: FieldGroup;
  rows: FieldRow[];
  limit: number;
  /** No more rows may be added (the group's count, or the secondary and auxiliary fields' together). */
  full: boolean;
  onChange(rows: FieldRow[]): void;
}) {
  const inputs = useRef(new Map<string, HTMLInputElement | HTMLTextAreaElement>());
  const focusAfter = useRef<string | null>(null);
  const groupField = `design.fields.${group}`;

  useEffect(() => {
    if (!focusAfter.current) return;
    document.getElementById(focusAfter.current)?.focus();
    focusAfter.current = null;
  });

  const set = (index: number, patch: Partial<FieldRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  const move = (index: number, by: -1 | 1) => {
    const next = [...rows];
    const [row] = next.splice(index, 1);
    if (!row) return;
    const to = index + by;
    next.splice(to, 0, row);
    // Focus stays with the moved row: its same button, or its other one once it reaches an end.
    const buttons = inputId(`${groupField}.${to}`);
    focusAfter.current = to === 0 ? `${buttons}-down` : to === rows.length - 1 ? `${buttons}-up` : `${buttons}-${by < 0 ? 'up' : 'down'}`;
    onChange(next);
  };
  const add = () => {
    const taken = new Set(rows.map((row) => row.key));
    let n = rows.length + 1;
    while (taken.has(`${group}${n}`)) n++;
    const row = { id: rowId(), key: `${group}${n}`, label: '', value: '' };
    focusAfter.current = inputId(`${groupField}.${rows.length}.label`);
    onChange([...rows, row]);
  };
  const remove = (index: number) => {
    focusAfter.current = rows.length > 1 ? inputId(`${groupField}.${Math.max(0, index - 1)}.label`) : `${inputId(groupField)}-add`;
    onChange(rows.filter((_, i) => i !== index));
  };
  const insert = (index: number, placeholder: string) => {
    const row = rows[index];
    if (!row) return;
    const input = inputs.current.get(row.id);
    // An input keeps its caret when focus moves to the chip: the placeholder goes there.
    const at = input?.selectionStart ?? row.value.length;
    const text = `{${placeholder}}`;
    set(index, { value: row.value.slice(0, at) + text + row.value.slice(at) });
    requestAnimationFrame(() => {
      input?.focus();
      input?.setSelectionRange(at + text.length, at + text.length);
    });
  };

  return (
    <fieldset className={styles.fieldset} id={inputId(groupField)} aria-describedby={`${inputId(groupField)}-count`}>
      <legend className={styles.legend}>{GROUP_NAMES[group]}</legend>
      <span id={`${inputId(groupField)}-count`} className={styles.hint}>
        {rows.length} of at most {limit}
        {group === 'back' ? '' : ' shown on the front for this style'}
      </span>
      <FieldError field={groupField} />
      {rows.map((row, index) => {
        const base = `${groupField}.${index}`;
        const name = row.label || row.key || `field ${index + 1}`;
        return (
          <div key={row.id} className={styles.fieldRow} data-field-row={`${group}-${index}`}>
            <div className={styles.fieldRowInputs}>
              <TextField field={`${base}.label`} label="Label" value={row.label} maxLength={40} onChange={(label) => set(index, { label })} />
              <TextField
                field={`${base}.value`}
                label="Value"
                value={row.value}
                multiline={group === 'back'}
                onChange={(value) => set(index, { value })}
                inputRef={(element) => {
                  if (element) inputs.current.set(row.id, element);
                  else inputs.current.delete(row.id);
                }}
              />
              <TextField field={`${base}.key`} label="Key" value={row.key} mono maxLength={40} onChange={(key) => set(index, { key })} />
            </div>
            {/* biome-ignore lint/a11y/useSemanticElements: a group of buttons, not a form section */}
            <div className={styles.chips} role="group" aria-label={`Insert a placeholder into the value of ${name}`}>
              {PLACEHOLDERS.map((placeholder) => (
                <button key={placeholder} type="button" className={styles.chip} onClick={() => insert(index, placeholder)}>
                  {`{${placeholder}}`}
                </button>
              ))}
            </div>
            <div className={styles.toolbar}>
              <Button variant="quiet" id={`${inputId(base)}-up`} className={styles.compact} disabled={index === 0} onClick={() => move(index, -1)}>
                Move up<span className="visually-hidden"> {name}</span>
              </Button>
              <Button
                variant="quiet"
                id={`${inputId(base)}-down`}
                className={styles.compact}
                disabled={index === rows.length - 1}
                onClick={() => move(index, 1)}
              >
                Move down<span className="visually-hidden"> {name}</span>
              </Button>
              <Button variant="secondary" className={styles.compact} onClick={() => remove(index)}>
                Remove<span className="visually-hidden"> {name}</span>
              </Button>
            </div>
          </div>
        );
      })}
      <div>
        <Button variant="secondary" id={`${inputId(groupField)}-add`} className={styles.compact} disabled={full} onClick={add}>
          Add {GROUP_NAMES[group].replace(' fields', '').toLowerCase()} field
        </Button>
      </div>
    </fieldset>
  );
}

function DesignEditor({ design, onChange }: { design: DesignDraft; onChange(patch: Partial<DesignDraft>): void }) {
  const limits = FIELD_LIMITS[design.style];
  const together = design.fields.secondary.length + design.fields.auxiliary.length;
  return (
    <>
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>Look</legend>
        <div className={styles.formGrid}>
          <SelectField
            field="design.style"
            label="Style"
            value={design.style}
            options={PASS_STYLES}
            names={STYLE_NAMES}
            onChange={(style) => onChange({ style })}
          />
          <SelectField
            field="design.barcode"
            label="Barcode"
            value={design.barcode}
            options={BARCODE_FORMATS}
            names={BARCODE_NAMES}
            onChange={(barcode) => onChange({ barcode })}
          />
          <TextField
            field="design.organizationName"
            label="Organisation name"
            value={design.organizationName}
            onChange={(organizationName) => onChange({ organizationName })}
          />
          <TextField field="design.logoText" label="Logo text" value={design.logoText} onChange={(logoText) => onChange({ logoText })} />
        </div>
        <TextField
          field="design.description"
          label="Description"
          hint="What the pass is, for VoiceOver and the lock screen."
          value={design.description}
          onChange={(description) => onChange({ description })}
        />
        <div className={styles.formGrid}>
          {COLOURS.map(({ name, label }) => (
            <ColourField key={name} field={`design.${name}`} label={label} value={design[name]} onChange={(value) => onChange({ [name]: value })} />
          ))}
        </div>
      </fieldset>
      {FIELD_GROUPS.map((group) => (
        <FieldGroupEditor
          key={group}
          group={group}
          rows={design.fields[group]}
          limit={limits[group]}
          full={design.fields[group].length >= limits[group] || ((group === 'secondary' || group === 'auxiliary') && together >= limits.secondaryAndAuxiliary)}
          onChange={(rows) => onChange({ fields: { ...design.fields, [group]: rows } })}
        />
      ))}
      <LocationsEditor design={design} onChange={onChange} />
      <fieldset className={styles.fieldset}>
        <legend className={styles.legend}>Dates on the pass</legend>
        <div className={styles.formGrid}>
          <TextField
            field="design.relevantDate"
            label="Relevant date"
            type="datetime-local"
            hint="Wallet shows the pass on the lock screen near this time."
            value={design.relevantDate}
            onChange={(relevantDate) => onChange({ relevantDate })}
          />
          <TextField
            field="design.expirationDate"
            label="Expiration date"
            type="datetime-local"
            hint="Wallet shows the pass as expired after it."
            value={design.expirationDate}
            onChange={(expirationDate) => onChange({ expirationDate })}
          />
        </div>
      </fieldset>
    </>
  );
}

const LOCATIONS_MAX = 10;

function LocationsEditor({ design, onChange }: { design: DesignDraft; onChange(patch: Partial<DesignDraft>): void }) {
  const set = (index: number, patch: Partial<DesignDraft['locations'][number]>) =>
    onChange({ locations: design.locations.map((location, i) => (i === index ? { ...location, ...patch } : location)) });
  return (
    <fieldset className={styles.fieldset} id={inputId('design.locations')}>
      <legend className={styles.legend}>Locations</legend>
      <span className={styles.hint}>Wallet offers the pass on the lock screen near these places (at most {LOCATIONS_MAX}).</span>
      <FieldError field="design.locations" />
      {design.locations.map((location, index) => (
        <div key={location.id} className={styles.fieldRow}>
          <div className={styles.fieldRowInputs}>
            <TextField
              field={`design.locations.${index}.latitude`}
              label="Latitude"
              inputMode="decimal"
              value={location.latitude}
              onChange={(latitude) => set(index, { latitude })}
            />
            <TextField
              field={`design.locations.${index}.longitude`}
              label="Longitude"
              inputMode="decimal"
              value={location.longitude}
              onChange={(longitude) => set(index, { longitude })}
            />
            <TextField
              field={`design.locations.${index}.relevantText`}
              label="Text shown there"
              value={location.relevantText}
              maxLength={100}
              onChange={(relevantText) => set(index, { relevantText })}
            />
          </div>
          <div className={styles.toolbar}>
            <Button variant="secondary" className={styles.compact} onClick={() => onChange({ locations: design.locations.filter((_, i) => i !== index) })}>
              Remove<span className="visually-hidden"> location {index + 1}</span>
            </Button>
          </div>
        </div>
      ))}
      <div>
        <Button
          variant="secondary"
          className={styles.compact}
          disabled={design.locations.length >= LOCATIONS_MAX}
          onClick={() => onChange({ locations: [...design.locations, { id: rowId(), latitude: '', longitude: '', relevantText: '' }] })}
        >
          Add location
        </Button>
      </div>
    </fieldset>
  );
}

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
