// Programs as operators manage them (create, read, list, change) and as claims meet them (open,
// sold out, whose policy). Routes call these; each returns a value or throws an AppError.
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { JobInput } from '../db/jobs';
import type { ImageChange } from '../db/program-images';
import {
  changeProgram,
  findProgram,
  findProgramWithCounts,
  insertProgram,
  listPrograms,
  type Program,
  type ProgramChange,
  type ProgramWithCounts,
} from '../db/programs';
import type { Store } from '../db/store';
import type { ChainReader } from '../eligibility/chain';
import { EligibilityChecker } from '../eligibility/checker';
import { needsRpc, parseProgramPolicy } from '../eligibility/policy';
import { AppError, type FieldError } from '../errors';
import type { Logger } from '../log';
import { newUpdateId, planJob } from '../updates/kinds';
import { defaultDesign } from './design';
import { DEFAULT_PROGRAM, type ProgramCreate, type ProgramPatch } from './schema';

export const programNotFound = () => new AppError('program_not_found', 'No program has this slug.');

/** What managing programs needs. */
export type ProgramsDeps = {
  config: Pick<Config, 'publicBaseUrl' | 'solanaRpcUrl'>;
  store: Pick<Store, 'sql' | 'jobs'>;
  clock: Clock;
  log: Logger;
  programs: ProgramDirectory;
};

/** A program as the operator API answers it. */
export type ProgramView = ProgramWithCounts & { claimUrl: string };

export function claimPageUrl(config: Pick<Config, 'publicBaseUrl'>, slug: string): string {
  return slug === DEFAULT_PROGRAM ? `${config.publicBaseUrl}/` : `${config.publicBaseUrl}/p/${slug}`;
}

const view = (deps: Pick<ProgramsDeps, 'config'>, program: ProgramWithCounts): ProgramView => ({
  ...program,
  claimUrl: claimPageUrl(deps.config, program.slug),
});

/** Refuses a policy that does not parse, or that reads the chain when no RPC is configured; each problem at its field. */
function checkPolicy(deps: Pick<ProgramsDeps, 'config'>, policy: Record<string, unknown> | null | undefined): void {
  if (policy === null || policy === undefined) return;
  const parsed = parseProgramPolicy(policy);
  let fields: FieldError[];
  if ('problems' in parsed) {
    fields = parsed.problems.map((problem) => ({ field: problem.path ? `policy.${problem.path}` : 'policy', message: problem.message }));
  } else if (needsRpc(parsed.rule) && !deps.config.solanaRpcUrl) {
    fields = [{ field: 'policy', message: 'reads the chain (token, collection or group rules): set SOLANA_RPC_URL first' }];
  } else {
    return;
  }
  throw new AppError('invalid_request', fields.map((f) => `${f.field} ${f.message}`).join('; '), { fields });
}

export async function createProgram(deps: ProgramsDeps, input: ProgramCreate): Promise<ProgramView> {
  checkPolicy(deps, input.policy);
  const program = await insertProgram(
    deps.store.sql,
    {
      slug: input.slug,
      name: input.name,
      status: input.status,
      opensAt: input.opensAt ? new Date(input.opensAt) : null,
      closesAt: input.closesAt ? new Date(input.closesAt) : null,
      supply: input.supply ?? null,
      policy: input.policy ?? null,
      checkIn: input.checkIn,
      design: input.design ?? defaultDesign(),
    },
    new Date(deps.clock.now()),
  );
  if (!program) throw new AppError('program_exists', `A program with the slug "${input.slug}" exists already.`);
  deps.log.info({ event: 'program_created', program: program.slug, status: program.status }, 'program created');
  return view(deps, { ...program, passes: 0, active: 0, devices: 0 });
}

export async function getProgram(deps: Pick<ProgramsDeps, 'config' | 'store'>, slug: string): Promise<ProgramView> {
  const program = await findProgramWithCounts(deps.store.sql, slug);
  if (!program) throw programNotFound();
  return view(deps, program);
}

export async function getPrograms(deps: Pick<ProgramsDeps, 'config' | 'store'>): Promise<ProgramView[]> {
  return (await listPrograms(deps.store.sql)).map((program) => view(deps, program));
}

/** What of a program its passes show: a change of these rebuilds and pushes every pass. */
const SHOWN_ON_PASSES = ['name', 'design'] as const;

/**
 * Changes a program. A change of what its passes show (design, name) gives every pass a new
 * version and enqueues, in the same statement, the fan-out that pushes them (./changes.ts).
 */
export async function updateProgram(deps: ProgramsDeps, slug: string, patch: ProgramPatch): Promise<ProgramView> {
  checkPolicy(deps, patch.policy);
  const before = await findProgram(deps.store.sql, slug);
  if (!before) throw programNotFound();
  if (patch.design === null && slug !== DEFAULT_PROGRAM) {
    throw new AppError('invalid_request', 'design must be a design: only the default program goes without one (its passes follow each wallet’s brand).', {
      fields: [{ field: 'design', message: 'must be a design object' }],
    });
  }
  const change: ProgramChange = {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.status !== undefined ? { status: patch.status } : {}),
    ...(patch.opensAt !== undefined ? { opensAt: patch.opensAt === null ? null : new Date(patch.opensAt) } : {}),
    ...(patch.closesAt !== undefined ? { closesAt: patch.closesAt === null ? null : new Date(patch.closesAt) } : {}),
    ...(patch.supply !== undefined ? { supply: patch.supply } : {}),
    ...(patch.policy !== undefined ? { policy: patch.policy } : {}),
    ...(patch.checkIn !== undefined ? { checkIn: patch.checkIn } : {}),
    ...(patch.design !== undefined ? { design: patch.design } : {}),
  };
  const opensAt = change.opensAt !== undefined ? change.opensAt : before.opensAt;
  const closesAt = change.closesAt !== undefined ? change.closesAt : before.closesAt;
  if (opensAt && closesAt && closesAt <= opensAt) {
    throw new AppError('invalid_request', 'closesAt must be after opensAt', { fields: [{ field: 'closesAt', message: 'must be after opensAt' }] });
  }
  const touchPasses = SHOWN_ON_PASSES.some((key) => change[key] !== undefined && JSON.stringify(change[key]) !== JSON.stringify(before[key]));
  const after = await applyProgramChange(deps, slug, change, touchPasses);
  deps.log.info({ event: 'program_updated', program: slug, fields: Object.keys(change), passesTouched: touchPasses }, 'program updated');
  return getProgram(deps, after.slug);
}

/**
 * Applies a change to a program; with `touchPasses`, its passes get new versions, and an update
 * (lib/updates: the record of reaching every device) is made with its planning job in the same
 * statement, as is `images` (one kind's files replaced or removed: ./images.ts). Forgets the
 * program in this instance's directory at once.
 */
export async function applyProgramChange(
  deps: Pick<ProgramsDeps, 'store' | 'programs'>,
  slug: string,
  change: ProgramChange,
  touchPasses: boolean,
  images?: ImageChange,
): Promise<Program> {
  const updateId = touchPasses ? newUpdateId() : undefined;
  const jobs: JobInput[] = updateId ? [planJob(updateId)] : [];
  const update = updateId ? { id: updateId, kind: 'change' as const, activeOnly: false } : undefined;
  const after = await changeProgram(deps.store.jobs, slug, change, { touchPasses, jobs, images, update });
  if (!after) throw programNotFound();
  deps.programs.forget(slug);
  return after;
}

// ---- What claims meet ----

/** How long this instance reuses a program it read (ms): a change made on another instance takes effect within this. */
const DIRECTORY_TTL_MS = 1000;

/**
 * The programs claims read, kept for a second per instance: an init and a claim of the default
 * program cost no extra statement in a burst. A change made here is seen at once (forget); one made
 * on another instance within DIRECTORY_TTL_MS. Each program's policy gets one checker, rebuilt
 * when the program changes.
 */
export class ProgramDirectory {
  private readonly cache = new Map<string, { program: Program | undefined; until: number }>();
  private readonly checkers = new Map<string, { version: string; checker: EligibilityChecker }>();

  constructor(
    private readonly store: Pick<Store, 'sql'>,
    private readonly eligibility: {
      /** CLAIM_POLICY's checker (asked each time: the services may replace it): the default program's policy unless it has one of its own. */
      defaultChecker: () => EligibilityChecker | undefined;
      chain?: ChainReader;
      cacheSeconds: number;
      timeoutMs: number;
    },
  ) {}

  async find(slug: string): Promise<Program | undefined> {
    const now = Date.now();
    const cached = this.cache.get(slug);
    if (cached && cached.until > now) return cached.program;
    const program = await findProgram(this.store.sql, slug);
    // Unknown slugs are not kept: a flood of made-up slugs must not grow the map.
    if (program) this.cache.set(slug, { program, until: now + DIRECTORY_TTL_MS });
    else this.cache.delete(slug);
    return program;
  }

  forget(slug: string): void {
    this.cache.delete(slug);
  }

  /** A pass of the program was issued here, or refused as sold out: a program with a supply is read again, so this instance's inits see its count at once. */
  issuedOrSoldOut(slug: string): void {
    const cached = this.cache.get(slug);
    if (cached?.program?.supply !== null) this.cache.delete(slug);
  }

  /** The checker of a program's policy; undefined when anyone may claim. */
  checkerOf(program: Program): EligibilityChecker | undefined {
    if (!program.policy) return program.slug === DEFAULT_PROGRAM ? this.eligibility.defaultChecker() : undefined;
    const known = this.checkers.get(program.slug);
    if (known && known.version === program.version) return known.checker;
    const parsed = parseProgramPolicy(program.policy);
    // Stored policies were checked when saved; one that no longer parses lets no one in.
    if ('problems' in parsed) throw new AppError('service_unavailable', 'This program’s claim policy cannot be read; an operator must fix it.');
    const checker = new EligibilityChecker(parsed.rule, this.eligibility.chain, {
      cacheSeconds: this.eligibility.cacheSeconds,
      timeoutMs: this.eligibility.timeoutMs,
    });
    this.checkers.set(program.slug, { version: program.version, checker });
    return checker;
  }
}

/**
 * The program a claim names, if a wallet may claim from it now: unknown and draft programs are
 * not found; a closed one, or one outside its window, is closed (saying when it opens); one whose
 * supply is all issued is sold out (the claim's statement decides for the last passes).
 */
export async function openProgram(deps: { programs: ProgramDirectory; clock: Clock }, slug: string): Promise<Program> {
  const program = await deps.programs.find(slug);
  if (!program || program.status === 'draft') throw programNotFound();
  checkOpen(program, deps.clock.now());
  return program;
}

/** Throws why a found, non-draft program takes no claim at `now` (closed, not open yet, sold out); the claim page says the same. */
export function checkOpen(program: Program, now: number): void {
  if (program.status === 'closed') throw new AppError('program_closed', `“${program.name}” is closed: it issues no more passes.`);
  if (program.opensAt && now < program.opensAt.getTime()) {
    throw new AppError('program_closed', `“${program.name}” is not open yet: it opens at ${program.opensAt.toISOString()}.`, {
      opensAt: program.opensAt.toISOString(),
    });
  }
  if (program.closesAt && now >= program.closesAt.getTime()) {
    throw new AppError('program_closed', `“${program.name}” closed at ${program.closesAt.toISOString()}: it issues no more passes.`);
  }
  if (program.supply !== null && program.issued >= program.supply) throw soldOut(program);
}

export const soldOut = (program: Pick<Program, 'name' | 'supply'>) =>
  new AppError('sold_out', `Every pass of “${program.name}” is issued (${program.supply} of ${program.supply}).`);
