'use client';
// The program editor's inputs: each tied to its label, its hint and its error by the API's field
// name (design.fields.primary.0.value), so that an error the API sends back shows at its input.
import { createContext, useContext } from 'react';
import styles from './console.module.css';

/** The input of an API field name: "design.fields.primary.0.value" → "pe-design-fields-primary-0-value". */
export const inputId = (field: string) => `pe-${field.replaceAll('.', '-')}`;

export type Errors = { errorOf(field: string): string | undefined; touch(field: string): void };
export const ErrorsContext = createContext<Errors>({ errorOf: () => undefined, touch: () => {} });

/** An error under its input, named by the input's aria-describedby. */
export function FieldError({ field }: { field: string }) {
  const message = useContext(ErrorsContext).errorOf(field);
  if (!message) return null;
  return (
    <span id={`${inputId(field)}-error`} className={styles.fieldError}>
      {message}
    </span>
  );
}

/** The attributes that tie an input to its label's field name, its hint and its error. */
export function useDescribed(field: string, hint?: string) {
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

export function TextField({ field, label, value, onChange, hint, type = 'text', inputMode, multiline, mono, maxLength, disabled, inputRef }: TextProps) {
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

export function SelectField<T extends string>({
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

export function ColourField({ field, label, value, onChange }: { field: string; label: string; value: string; onChange(value: string): void }) {
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
