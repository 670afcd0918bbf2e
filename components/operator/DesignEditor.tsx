'use client';
// The design half of the program editor: style, names, colours, the field groups within Apple's
// counts for the style, the barcode, locations and dates (ProgramEditor.tsx holds the rest).
import { useEffect, useRef } from 'react';
import { Button } from '@/components/ui/Button';
import { BARCODE_FORMATS, FIELD_GROUPS, FIELD_LIMITS, type FieldGroup, PASS_STYLES, PLACEHOLDERS } from '@/lib/programs/schema';
import styles from './console.module.css';
import { ColourField, FieldError, inputId, SelectField, TextField } from './editor-fields';
import { type DesignDraft, type FieldRow, rowId } from './program-draft';

const STYLE_NAMES: Record<DesignDraft['style'], string> = { generic: 'Generic', storeCard: 'Store card', eventTicket: 'Event ticket', coupon: 'Coupon' };
const BARCODE_NAMES: Record<DesignDraft['barcode'], string> = { qr: 'QR code', pdf417: 'PDF417', aztec: 'Aztec', code128: 'Code 128' };
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

export function DesignEditor({ design, onChange }: { design: DesignDraft; onChange(patch: Partial<DesignDraft>): void }) {
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
