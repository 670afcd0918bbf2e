// A program as the operator API takes it: its fields and its design, validated with zod so that
// every bad field is named (400 invalid_request) and nothing is saved. No server imports: the
// console's editor validates with the same schema as it is typed.
import { z } from 'zod';
import { FIELD_LIMITS } from './field-limits';

export const PROGRAM_STATUSES = ['draft', 'live', 'closed'] as const;
export type ProgramStatus = (typeof PROGRAM_STATUSES)[number];
export const CHECK_IN_RULES = ['once', 'daily', 'unlimited'] as const;
export type CheckInRule = (typeof CHECK_IN_RULES)[number];
export const PASS_STYLES = ['generic', 'storeCard', 'eventTicket', 'coupon'] as const;
export type PassStyle = (typeof PASS_STYLES)[number];
export const BARCODE_FORMATS = ['qr', 'pdf417', 'aztec', 'code128'] as const;
export type BarcodeFormat = (typeof BARCODE_FORMATS)[number];
export const FIELD_GROUPS = ['header', 'primary', 'secondary', 'auxiliary', 'back'] as const;
export type FieldGroup = (typeof FIELD_GROUPS)[number];

/** The program of parts one and two: requests that name no program mean it. */
export const DEFAULT_PROGRAM = 'default';

/** Fixed once created; it is the claim page's path (/p/<slug>) and a pass's program. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{1,38})[a-z0-9]$/;

export { FIELD_LIMITS } from './field-limits';

/** What a field's value may say of its pass, filled in per pass (lib/programs/design.ts). */
export const PLACEHOLDERS = ['address', 'shortAddress', 'serialNumber', 'claimedAt', 'walletType'] as const;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** Text shown on the pass or the claim page: no control or bidirectional characters (a line break only where `lines`). */
const text = (max: number, options: { lines?: boolean; min?: number } = {}) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .min(options.min ?? 1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((value) => !CONTROL.test(value) && (options.lines || !/[\n\r\t]/.test(value)), options.lines ? 'must be text' : 'must be one line of text');

const colour = z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as #rrggbb');

const isoInstant = z.iso.datetime({ offset: true, error: 'must be an ISO 8601 date-time with a time zone, such as 2026-12-31T19:00:00Z' });

const placeholderText = (max: number, lines: boolean) =>
  text(max, { lines }).refine(
    (value) => [...value.matchAll(/\{([^{}]*)\}/g)].every((match) => (PLACEHOLDERS as readonly string[]).includes(match[1] ?? '')),
    `may hold only the placeholders ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')}`,
  );

const fieldSchema = (lines: boolean) =>
  z.strictObject({
    key: z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,39}$/, 'must be a letter then up to 39 letters, digits or _'),
    label: text(40, { min: 0 }),
    value: placeholderText(lines ? 500 : 120, lines),
  });

export const designFieldsSchema = z.strictObject({
  header: z.array(fieldSchema(false)).default([]),
  primary: z.array(fieldSchema(false)).default([]),
  secondary: z.array(fieldSchema(false)).default([]),
  auxiliary: z.array(fieldSchema(false)).default([]),
  back: z.array(fieldSchema(true)).default([]),
});

export const locationSchema = z.strictObject({
  latitude: z.number().min(-90, 'must be from -90 to 90').max(90, 'must be from -90 to 90'),
  longitude: z.number().min(-180, 'must be from -180 to 180').max(180, 'must be from -180 to 180'),
  relevantText: text(100).optional(),
});

export const designSchema = z
  .strictObject({
    style: z.enum(PASS_STYLES, { error: `must be one of ${PASS_STYLES.join(', ')}` }).default('generic'),
    organizationName: text(64).optional(),
    description: text(128).optional(),
    logoText: text(32).optional(),
    backgroundColor: colour.default('#14151a'),
    foregroundColor: colour.default('#ffffff'),
    labelColor: colour.default('#14f195'),
    fields: designFieldsSchema.default({ header: [], primary: [], secondary: [], auxiliary: [], back: [] }),
    barcode: z.enum(BARCODE_FORMATS, { error: `must be one of ${BARCODE_FORMATS.join(', ')}` }).default('qr'),
    locations: z.array(locationSchema).max(10, 'must list at most 10 locations').default([]),
    relevantDate: isoInstant.optional(),
    expirationDate: isoInstant.optional(),
  })
  .superRefine((design, ctx) => {
    const limits = FIELD_LIMITS[design.style];
    for (const group of FIELD_GROUPS) {
      if (design.fields[group].length > limits[group]) {
        ctx.addIssue({ code: 'custom', path: ['fields', group], message: `must list at most ${limits[group]} fields for the ${design.style} style` });
      }
    }
    if (design.fields.secondary.length + design.fields.auxiliary.length > limits.secondaryAndAuxiliary) {
      ctx.addIssue({
        code: 'custom',
        path: ['fields', 'auxiliary'],
        message: `secondary and auxiliary fields together must be at most ${limits.secondaryAndAuxiliary} for the ${design.style} style`,
      });
    }
    const seen = new Set<string>();
    for (const group of FIELD_GROUPS) {
      design.fields[group].forEach((field, index) => {
        if (seen.has(field.key)) ctx.addIssue({ code: 'custom', path: ['fields', group, index, 'key'], message: 'is used by another field' });
        seen.add(field.key);
      });
    }
  });

export type Design = z.output<typeof designSchema>;
export type DesignInput = z.input<typeof designSchema>;
export type DesignField = Design['fields']['header'][number];

const programFields = {
  name: text(80),
  status: z.enum(PROGRAM_STATUSES, { error: `must be one of ${PROGRAM_STATUSES.join(', ')}` }),
  opensAt: isoInstant.nullable(),
  closesAt: isoInstant.nullable(),
  supply: z.number().int('must be a whole number').min(1, 'must be at least 1').max(10_000_000, 'must be at most 10000000').nullable(),
  /** A CLAIM_POLICY rule; checked in full by lib/programs/policy.ts (it reads the policy grammar). */
  policy: z.record(z.string(), z.unknown(), { error: 'must be a rule object, as CLAIM_POLICY takes' }).nullable(),
  checkIn: z.enum(CHECK_IN_RULES, { error: `must be one of ${CHECK_IN_RULES.join(', ')}` }),
  design: designSchema,
};

const windowInOrder = (program: { opensAt?: string | null; closesAt?: string | null }, ctx: z.RefinementCtx) => {
  if (program.opensAt && program.closesAt && Date.parse(program.closesAt) <= Date.parse(program.opensAt)) {
    ctx.addIssue({ code: 'custom', path: ['closesAt'], message: 'must be after opensAt' });
  }
};

/** POST /api/v1/operator/programs: a slug and a name; everything else has a default. */
export const programCreateSchema = z
  .strictObject({
    slug: z.string().regex(SLUG_PATTERN, 'must be 3 to 40 lowercase letters, digits or hyphens, starting and ending with a letter or digit'),
    name: programFields.name,
    status: programFields.status.default('draft'),
    opensAt: programFields.opensAt.optional(),
    closesAt: programFields.closesAt.optional(),
    supply: programFields.supply.optional(),
    policy: programFields.policy.optional(),
    checkIn: programFields.checkIn.default('once'),
    design: programFields.design.optional(),
  })
  .superRefine(windowInOrder);
export type ProgramCreate = z.output<typeof programCreateSchema>;

/** PATCH: any field but the slug; null clears an optional one. `design` replaces the design whole. */
export const programPatchSchema = z
  .strictObject({
    name: programFields.name.optional(),
    status: programFields.status.optional(),
    opensAt: programFields.opensAt.optional(),
    closesAt: programFields.closesAt.optional(),
    supply: programFields.supply.optional(),
    policy: programFields.policy.optional(),
    checkIn: programFields.checkIn.optional(),
    design: programFields.design.nullable().optional(),
  })
  .superRefine(windowInOrder);
export type ProgramPatch = z.output<typeof programPatchSchema>;
