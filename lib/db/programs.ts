// The `programs` table: its row type, its one column list, and every statement on it but the
// supply's (one conditional UPDATE in the claim's statement: ./passes.ts, claimPasses). A change of
// a program moves its updated_at and, in the same statement, the updated_at of each of its passes
// (their files are built from the program) and its jobs: a crash cannot keep one without the other.
import type { CheckInRule, Design, ProgramStatus } from '../programs/schema';
import { type JobInput, type Jobs, jobsParameter, statementWithJobs } from './jobs';
import { IMAGE_CHANGE_CTES, type ImageChange, imageChangeParameters } from './program-images';
import { asDate, asOptionalDate, type Queryable, VERSION_OF } from './sql';
import { NEW_UPDATE_CTES, type NewUpdate, newUpdateParameter } from './updates';

/** A row of `programs`. */
export type Program = {
  slug: string;
  name: string;
  status: ProgramStatus;
  opensAt: Date | null;
  closesAt: Date | null;
  supply: number | null;
  /** Passes granted against the supply (counted only while the program has one). */
  issued: number;
  /** The CLAIM_POLICY rule as JSON; null: anyone (the default program: CLAIM_POLICY). */
  policy: Record<string, unknown> | null;
  checkIn: CheckInRule;
  /** null: the wallet-brand designs (the default program). */
  design: Design | null;
  createdAt: Date;
  updatedAt: Date;
  /** updated_at in whole microseconds (text): what caches of the program's images and passes key on. */
  version: string;
  /** The latest message to its holders (lib/updates), shown on the back of every active pass; null: none. */
  message: string | null;
};

/** A program with its pass counts, as operators see it; `devices`: the devices registered for its active passes (what a message reaches). */
export type ProgramWithCounts = Program & { passes: number; active: number; devices: number };

const PROGRAM_COLUMNS = `g.slug, g.name, g.status, g.opens_at as "opensAt", g.closes_at as "closesAt", g.supply, g.issued,
  g.policy, g.check_in as "checkIn", g.design, g.created_at as "createdAt", g.updated_at as "updatedAt", ${VERSION_OF('g.updated_at')} as version, g.message`;

const COUNT_COLUMNS = `(select count(*) from passes p where p.program = g.slug)::int as passes,
  (select count(*) from passes p where p.program = g.slug and p.status = 'active')::int as active,
  (select count(*) from passes p join device_registrations r on r.serial_number = p.serial_number
    where p.program = g.slug and p.status = 'active')::int as devices`;

type Instant = Date | string;
type ProgramRowOut = Omit<Program, 'opensAt' | 'closesAt' | 'createdAt' | 'updatedAt'> & {
  opensAt: Instant | null;
  closesAt: Instant | null;
  createdAt: Instant;
  updatedAt: Instant;
};

const toProgram = (row: ProgramRowOut): Program => ({
  ...row,
  opensAt: asOptionalDate(row.opensAt),
  closesAt: asOptionalDate(row.closesAt),
  createdAt: asDate(row.createdAt),
  updatedAt: asDate(row.updatedAt),
});

type CountedRowOut = ProgramRowOut & { passes: number; active: number; devices: number };

const toCounted = (row: CountedRowOut): ProgramWithCounts => ({
  ...toProgram(row),
  passes: Number(row.passes),
  active: Number(row.active),
  devices: Number(row.devices),
});

export async function findProgram(db: Queryable, slug: string): Promise<Program | undefined> {
  const [row] = await db.query<ProgramRowOut>(`select ${PROGRAM_COLUMNS} from programs g where g.slug = $1`, [slug]);
  return row && toProgram(row);
}

export async function findProgramWithCounts(db: Queryable, slug: string): Promise<ProgramWithCounts | undefined> {
  const [row] = await db.query<CountedRowOut>(`select ${PROGRAM_COLUMNS}, ${COUNT_COLUMNS} from programs g where g.slug = $1`, [slug]);
  return row && toCounted(row);
}

/** Every program, the default first, then by creation. */
export async function listPrograms(db: Queryable): Promise<ProgramWithCounts[]> {
  const rows = await db.query<CountedRowOut>(`select ${PROGRAM_COLUMNS}, ${COUNT_COLUMNS} from programs g order by g.slug <> 'default', g.created_at, g.slug`);
  return rows.map(toCounted);
}

/**
 * The programs a re-check round may cover: each with a policy of its own, and the default program
 * (CLAIM_POLICY stands for its policy when it has none). Default first, then by slug.
 */
export async function programsToRecheck(db: Queryable): Promise<Program[]> {
  const rows = await db.query<ProgramRowOut>(
    `select ${PROGRAM_COLUMNS} from programs g where g.policy is not null or g.slug = 'default' order by g.slug <> 'default', g.slug`,
  );
  return rows.map(toProgram);
}

/** What a new program stores. */
export type NewProgram = Pick<Program, 'slug' | 'name' | 'status' | 'opensAt' | 'closesAt' | 'supply' | 'policy' | 'checkIn' | 'design'>;

/** Inserts a program; undefined when its slug is taken (the primary key decides, so two creations of one slug cannot both win). */
export async function insertProgram(db: Queryable, program: NewProgram, now: Date): Promise<Program | undefined> {
  const [row] = await db.query<ProgramRowOut>(
    `insert into programs as g (slug, name, status, opens_at, closes_at, supply, policy, check_in, design, created_at, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9::jsonb, $10, $10)
     on conflict (slug) do nothing
     returning ${PROGRAM_COLUMNS}`,
    [
      program.slug,
      program.name,
      program.status,
      program.opensAt?.toISOString() ?? null,
      program.closesAt?.toISOString() ?? null,
      program.supply,
      program.policy === null ? null : JSON.stringify(program.policy),
      program.checkIn,
      program.design === null ? null : JSON.stringify(program.design),
      now.toISOString(),
    ],
  );
  return row && toProgram(row);
}

/** The columns a change sets; those left out keep their value. `message`: a new message to the holders. */
export type ProgramChange = Partial<NewProgram> & { message?: string };

/**
 * Applies a change to a program, in one statement with what it causes:
 * - with `touchPasses` (the passes' content changed: design, images, name), every pass of the
 *   program gets a new version, so its next download is rebuilt with a new ETag and devices asking
 *   "what changed since" are told;
 * - `jobs` (the fan-out to devices and Google, webhook events) are enqueued with it;
 * - `images` replaces (or, with no files, removes) one kind of the program's images with it;
 * - `update` is made with it (lib/updates: the record of reaching every device), its passes and
 *   devices counted as the statement sees them;
 * - with `onlyLive`, nothing happens unless the program is live (a message to its holders).
 * Setting a supply on a program that had none starts its count from the passes it has.
 * Undefined when no program has that slug (or, with `onlyLive`, it is not live).
 */
export async function changeProgram(
  jobs: Jobs,
  slug: string,
  change: ProgramChange,
  options: { touchPasses: boolean; jobs: JobInput[]; images?: ImageChange; update?: NewUpdate; onlyLive?: boolean },
): Promise<(Program & { update?: { passes: number; devices: number } }) | undefined> {
  const rows = await jobs.change<ProgramRowOut & { updatePasses: number | null; updateDevices: number | null }>(
    statementWithJobs({
      with: `patch as (select $2::jsonb as j),
        changed as (
          update programs g set
            name = case when j ? 'name' then j->>'name' else g.name end,
            status = case when j ? 'status' then j->>'status' else g.status end,
            opens_at = case when j ? 'opensAt' then (j->>'opensAt')::timestamptz else g.opens_at end,
            closes_at = case when j ? 'closesAt' then (j->>'closesAt')::timestamptz else g.closes_at end,
            issued = case when j ? 'supply' and g.supply is null and j->>'supply' is not null
              then (select count(*) from passes p where p.program = g.slug)::int else g.issued end,
            supply = case when j ? 'supply' then (j->>'supply')::int else g.supply end,
            policy = case when j ? 'policy' then j->'policy' else g.policy end,
            check_in = case when j ? 'checkIn' then j->>'checkIn' else g.check_in end,
            design = case when j ? 'design' then j->'design' else g.design end,
            message = case when j ? 'message' then j->>'message' else g.message end,
            message_at = case when j ? 'message' then now() else g.message_at end,
            updated_at = greatest(now(), g.updated_at + interval '1 millisecond')
          from patch where g.slug = $1 and (not $8::boolean or g.status = 'live')
          returning g.*, g.slug as key
        ),
        touched as (
          update passes p set updated_at = greatest(now(), p.updated_at + interval '1 millisecond')
          where $3::boolean and p.program in (select slug from changed)
        ),
        ${IMAGE_CHANGE_CTES('$5', '$6')},
        ${NEW_UPDATE_CTES('$7')}`,
      jobsParam: '$4',
      select: `select ${PROGRAM_COLUMNS}, (select passes from new_update) as "updatePasses", (select devices_estimate from new_update) as "updateDevices"
        from changed g`,
    }),
    [
      slug,
      JSON.stringify(patchJson(change)),
      options.touchPasses,
      jobsParameter(options.jobs.map((job) => ({ ...job, key: slug }))),
      ...imageChangeParameters(options.images),
      newUpdateParameter(options.update),
      options.onlyLive ?? false,
    ],
  );
  const [row] = rows;
  if (!row) return undefined;
  const { updatePasses, updateDevices, ...program } = row;
  return {
    ...toProgram(program),
    ...(updatePasses !== null && updatePasses !== undefined ? { update: { passes: Number(updatePasses), devices: Number(updateDevices) } } : {}),
  };
}

/** The change as the statement reads it: dates as ISO text, null kept (it clears), undefined left out. */
function patchJson(change: ProgramChange): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) continue;
    json[key] = value instanceof Date ? value.toISOString() : value;
  }
  return json;
}

/** Pages of a program's passes, in serial order (keyset), for the fan-out of a program change. */
export async function serialsOfProgram(db: Queryable, slug: string, afterSerial: string, limit: number): Promise<string[]> {
  const rows = await db.query<{ serialNumber: string }>(
    `select serial_number as "serialNumber" from passes where program = $1 and serial_number > $2 order by serial_number limit $3`,
    [slug, afterSerial, limit],
  );
  return rows.map((row) => row.serialNumber);
}
