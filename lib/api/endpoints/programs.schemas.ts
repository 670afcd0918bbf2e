// Request and response shapes of the programs API (./programs.ts): the request schemas are the
// program's own (lib/programs/schema.ts); the answer is the program with its counts and claim page.
import { z } from 'zod';
import type { ProgramView } from '../../programs/programs';
import { CHECK_IN_RULES, designSchema, PROGRAM_STATUSES, programCreateSchema, programPatchSchema, SLUG_PATTERN } from '../../programs/schema';

export const programCreateBodySchema = programCreateSchema.meta({
  id: 'ProgramCreateRequest',
  description: 'A new program: `slug` and `name` are required; every other field has its default (a draft, checked in once, the default design).',
});

export const programPatchBodySchema = programPatchSchema.meta({
  id: 'ProgramPatchRequest',
  description: 'Any fields but `slug`; null clears `opensAt`, `closesAt`, `supply` and `policy`. `design` replaces the whole design.',
});

export const programParamsSchema = z.object({
  slug: z.string().max(64).regex(SLUG_PATTERN, 'is not a program slug').meta({ description: 'The program’s slug.' }),
});

const isoOrNull = (description: string) =>
  z
    .string()
    .nullable()
    .meta({ description: `${description} (ISO 8601), or null.` });

export const programSchema = z
  .object({
    slug: z.string(),
    name: z.string(),
    status: z.enum(PROGRAM_STATUSES),
    opensAt: isoOrNull('Claims open'),
    closesAt: isoOrNull('Claims close'),
    supply: z.number().int().nullable().meta({ description: 'At most this many passes, ever; null: no limit.' }),
    policy: z
      .record(z.string(), z.unknown())
      .nullable()
      .meta({ description: 'Who may claim, as CLAIM_POLICY says it; null: anyone (for `default`: CLAIM_POLICY).' }),
    checkIn: z.enum(CHECK_IN_RULES),
    design: designSchema.nullable().meta({ description: 'null: the default program’s wallet-brand designs.' }),
    passes: z.number().int().meta({ description: 'Passes issued.' }),
    active: z.number().int().meta({ description: 'Passes not voided.' }),
    devices: z.number().int().meta({ description: 'Devices registered for its active passes: what a message reaches.' }),
    claimUrl: z.string().meta({ description: 'The claim page: /p/<slug> (`/` for the default program).' }),
    createdAt: z.string(),
    updatedAt: z.string().meta({ description: 'When it last changed.' }),
  })
  .meta({ id: 'Program' });

/** A program as a door's scan key sees it: what a door chooses by, and nothing of who may claim. */
export const programSummarySchema = z
  .object({ slug: z.string(), name: z.string(), status: z.enum(PROGRAM_STATUSES), checkIn: z.enum(CHECK_IN_RULES) })
  .meta({ id: 'ProgramSummary', description: 'A program as a scan key lists it: its slug, name, status and check-in rule.' });

export const programListSchema = z
  .object({ programs: z.array(z.union([programSchema, programSummarySchema])) })
  .meta({ id: 'ProgramList', description: 'Every program, `default` first: whole for an operator, summaries for a scan key.' });

const isoOf = (date: Date | null) => (date ? date.toISOString() : null);

/** A program as a scan key's list answers it. */
export const programSummaryJson = (program: ProgramView) => ({ slug: program.slug, name: program.name, status: program.status, checkIn: program.checkIn });

/** A program as the API answers it. */
export const programJson = (program: ProgramView) => ({
  slug: program.slug,
  name: program.name,
  status: program.status,
  opensAt: isoOf(program.opensAt),
  closesAt: isoOf(program.closesAt),
  supply: program.supply,
  policy: program.policy,
  checkIn: program.checkIn,
  design: program.design,
  passes: program.passes,
  active: program.active,
  devices: program.devices,
  claimUrl: program.claimUrl,
  createdAt: program.createdAt.toISOString(),
  updatedAt: program.updatedAt.toISOString(),
});
