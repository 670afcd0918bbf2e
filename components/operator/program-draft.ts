// A program as the editor holds it while it is typed: every input's text as typed (times as the
// datetime-local inputs give them, numbers as strings, the policy as JSON text), turned into the
// API's body, and checked with the API's own zod schemas, so that an error shows as it is typed
// and at the same field name the API's `fields` would give it ("design.fields.primary.0.value").
import type { Program, ProgramChange, ProgramInput } from '@/lib/client/operator';
import { defaultDesign } from '@/lib/programs/design';
import { type Design, type DesignInput, FIELD_GROUPS, type FieldGroup, programCreateSchema, programPatchSchema } from '@/lib/programs/schema';

export type FieldRow = { id: string; key: string; label: string; value: string };
export type LocationRow = { id: string; latitude: string; longitude: string; relevantText: string };

export type DesignDraft = {
  style: Design['style'];
  organizationName: string;
  description: string;
  logoText: string;
  backgroundColor: string;
  foregroundColor: string;
  labelColor: string;
  fields: Record<FieldGroup, FieldRow[]>;
  barcode: Design['barcode'];
  locations: LocationRow[];
  relevantDate: string;
  expirationDate: string;
};

export type Draft = {
  slug: string;
  name: string;
  opensAt: string;
  closesAt: string;
  supply: string;
  checkIn: Program['checkIn'];
  policy: string;
  /** null: the default program's wallet-brand designs. */
  design: DesignDraft | null;
};

/** Field name → message, as the API's `fields` says it. */
export type FieldErrors = Record<string, string>;

let rows = 0;
/** A row's key for React: rows move and go, their contents change. */
export const rowId = () => `row-${++rows}`;

const pad = (n: number) => String(n).padStart(2, '0');

/** An instant as a datetime-local input shows it: the operator's own time zone, to the minute. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A datetime-local value (the operator's time zone) as an ISO instant; '' stays absent. */
export function fromLocalInput(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value); // a date-time without an offset is local time
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

/** "Europe/Lisbon (UTC+01:00)": the zone the datetime inputs are in. */
export function timeZoneWords(at = new Date()): string {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const offset = -at.getTimezoneOffset();
  const sign = offset < 0 ? '−' : '+';
  return `${zone} (UTC${sign}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)})`;
}

export function designDraftOf(design: Design): DesignDraft {
  const fields = {} as Record<FieldGroup, FieldRow[]>;
  for (const group of FIELD_GROUPS) fields[group] = (design.fields?.[group] ?? []).map((field) => ({ id: rowId(), ...field }));
  return {
    style: design.style,
    organizationName: design.organizationName ?? '',
    description: design.description ?? '',
    logoText: design.logoText ?? '',
    backgroundColor: design.backgroundColor,
    foregroundColor: design.foregroundColor,
    labelColor: design.labelColor,
    fields,
    barcode: design.barcode,
    locations: (design.locations ?? []).map((location) => ({
      id: rowId(),
      latitude: String(location.latitude),
      longitude: String(location.longitude),
      relevantText: location.relevantText ?? '',
    })),
    relevantDate: toLocalInput(design.relevantDate),
    expirationDate: toLocalInput(design.expirationDate),
  };
}

export function draftOf(program: Program | null): Draft {
  if (!program) {
    return { slug: '', name: '', opensAt: '', closesAt: '', supply: '', checkIn: 'once', policy: '', design: designDraftOf(defaultDesign()) };
  }
  return {
    slug: program.slug,
    name: program.name,
    opensAt: toLocalInput(program.opensAt),
    closesAt: toLocalInput(program.closesAt),
    supply: program.supply === null ? '' : String(program.supply),
    checkIn: program.checkIn,
    policy: program.policy ? JSON.stringify(program.policy, null, 2) : '',
    design: program.design ? designDraftOf(program.design) : null,
  };
}

const optional = (text: string) => (text === '' ? undefined : text);
/** A number typed: '' and words are NaN, which the schema refuses ("must be a number"). */
const numberOf = (text: string) => (text.trim() === '' ? Number.NaN : Number(text));

/** The design as the API takes it (what the live picture draws too, valid or not). */
export function designOf(draft: DesignDraft): Design {
  const fields = {} as Design['fields'];
  for (const group of FIELD_GROUPS) fields[group] = draft.fields[group].map(({ key, label, value }) => ({ key, label, value }));
  const design: DesignInput = {
    style: draft.style,
    organizationName: optional(draft.organizationName),
    description: optional(draft.description),
    logoText: optional(draft.logoText),
    backgroundColor: draft.backgroundColor,
    foregroundColor: draft.foregroundColor,
    labelColor: draft.labelColor,
    fields,
    barcode: draft.barcode,
    locations: draft.locations.map((location) => ({
      latitude: numberOf(location.latitude),
      longitude: numberOf(location.longitude),
      relevantText: optional(location.relevantText),
    })),
    relevantDate: fromLocalInput(draft.relevantDate),
    expirationDate: fromLocalInput(draft.expirationDate),
  };
  // Absent optional texts are left out, as the API stores them.
  for (const name of Object.keys(design) as (keyof DesignInput)[]) if (design[name] === undefined) delete design[name];
  return design as Design;
}

/** The program's fields as the API takes them, and what could not even be read (the policy's JSON). */
export function bodyOf(draft: Draft): { body: ProgramInput; unreadable: FieldErrors } {
  const unreadable: FieldErrors = {};
  let policy: Record<string, unknown> | null = null;
  if (draft.policy.trim()) {
    try {
      policy = JSON.parse(draft.policy);
    } catch (error) {
      unreadable.policy = `must be JSON (${error instanceof SyntaxError ? error.message : 'it does not parse'})`;
    }
  }
  const body: ProgramInput = {
    slug: draft.slug,
    name: draft.name,
    opensAt: fromLocalInput(draft.opensAt) ?? null,
    closesAt: fromLocalInput(draft.closesAt) ?? null,
    supply: draft.supply.trim() === '' ? null : numberOf(draft.supply),
    policy,
    checkIn: draft.checkIn,
    ...(draft.design ? { design: designOf(draft.design) } : {}),
  };
  return { body, unreadable };
}

/** zod's words where the editor has better ones: a number field left empty or holding words. */
function message(text: string): string {
  return /expected number, received NaN/.test(text) ? 'must be a number' : text;
}

/** Every problem of the draft, by the API's field names: what the API would answer, checked here first. */
export function checkDraft(draft: Draft, creating: boolean): FieldErrors {
  const { body, unreadable } = bodyOf(draft);
  const { slug, ...rest } = body;
  const result = creating ? programCreateSchema.safeParse(body) : programPatchSchema.safeParse(rest);
  const errors: FieldErrors = {};
  if (!result.success) {
    for (const issue of result.error.issues) {
      const field = issue.path.map(String).join('.') || 'body';
      errors[field] ??= message(issue.message);
    }
  }
  return { ...errors, ...unreadable };
}

/** What changed from the saved program: a PATCH sends only that (a design change reaches every pass). */
export function changeOf(program: Program, body: ProgramInput): ProgramChange {
  const change: ProgramChange = {};
  const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
  if (body.name !== program.name) change.name = body.name;
  if (!same(body.opensAt, program.opensAt)) change.opensAt = body.opensAt ?? null;
  if (!same(body.closesAt, program.closesAt)) change.closesAt = body.closesAt ?? null;
  if (!same(body.supply, program.supply)) change.supply = body.supply ?? null;
  if (!same(body.policy, program.policy)) change.policy = body.policy ?? null;
  if (body.checkIn !== program.checkIn) change.checkIn = body.checkIn;
  if (body.design && !same(body.design, program.design)) change.design = body.design;
  return change;
}
