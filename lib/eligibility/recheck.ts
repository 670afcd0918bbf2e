// Re-check rounds: every ELIGIBILITY_RECHECK_SECONDS the passes are checked again against their
// program's policy: the default program's against CLAIM_POLICY (or its own policy, as its claims
// are), each other program's against its own; a program without one is skipped. A pass whose
// wallet no longer qualifies is voided with reason `not_eligible` (voidPass: the change is pushed to
// its devices and announced by webhook); one voided that way whose wallet qualifies again is
// restored. An operator's void is never touched. An RPC that fails stops the round: nothing is
// decided on a missing answer, and the round records why. The round's requests wait behind the
// claim path's in the instance's RPC budget (rpc-budget.ts); its progress (passes checked of the
// total counted at its start, requests sent) is written after each page, for the operator endpoint.
//
// A holder's re-check outside the rounds (a transfer seen by a subscription, subscriptions.ts)
// decides its passes with the same `settle`.
//
// With several instances on one PostgreSQL, a lease row lets one instance run a round at a time,
// and no instance starts one within the interval of the last (lib/db/eligibility.ts). One round
// covers every program, one after another.
import { randomUUID } from 'node:crypto';
import type { Config } from '../config';
import {
  finishRound,
  lastRound,
  type RoundCounts,
  type RoundRecord,
  recordRoundProgress,
  releaseRecheckLease,
  renewRecheckLease,
  startRound,
  takeRecheckLease,
} from '../db/eligibility';
import { countPassesToRecheck, passesOfWalletsToRecheck, passesToRecheck, type RecheckPass } from '../db/passes';
import { programsToRecheck } from '../db/programs';
import { type LifecycleDeps, restorePass, voidPass } from '../passes/lifecycle';
import type { ProgramDirectory } from '../programs/programs';
import { describeRule, type EligibilityChecker, newRoundReads, type PolicyDescription, type RoundReads, type Verdict } from './checker';

/** What a re-check round needs: each program's checker, and what voiding or restoring a pass needs. */
export type RecheckDeps = LifecycleDeps & {
  config: Pick<Config, 'webhook' | 'eligibilityRecheckSeconds'>;
  programs: Pick<ProgramDirectory, 'checkerOf'>;
};

/** Passes per page: one batch of wallets, whose NFT metadata goes in getMultipleAccounts calls of up to 100. */
export const RECHECK_PAGE = 100;
/** A round holds the lease this long past its last page: a round whose instance died is taken over after it. */
const LEASE_SECONDS = 300;
/** How often an instance looks whether a round is due (at most the interval). */
const MAX_TICK_SECONDS = 60;

export const NOT_ELIGIBLE = 'not_eligible';

export type RoundOutcome = { ran: false } | { ran: true; round: RoundRecord };

/** This process's instance name in the lease (only for telling holders apart). */
const INSTANCE = randomUUID();

type Counts = RoundCounts;

/** A program a round checks, with its policy's checker. */
export type ProgramToRecheck = { slug: string; checker: Pick<EligibilityChecker, 'checkMany' | 'policy'> };

/**
 * The programs a round checks now, each with its policy's checker, read afresh from the database
 * (a policy set on another instance counts at once). A stored policy that no longer parses is
 * skipped, said in the log (unless `quiet`): nothing is decided on a rule that cannot be read.
 */
export async function programsWithCheckers(services: RecheckDeps, { quiet = false } = {}): Promise<ProgramToRecheck[]> {
  const found: ProgramToRecheck[] = [];
  for (const program of await programsToRecheck(services.store.sql)) {
    try {
      const checker = services.programs.checkerOf(program);
      if (checker) found.push({ slug: program.slug, checker });
    } catch (error) {
      // `quiet`: read every few seconds (subscriptions.ts); the rounds say it.
      if (!quiet)
        services.log.error(
          { event: 'eligibility_program_skipped', program: program.slug, err: (error as Error).message },
          'a program’s policy cannot be read: its passes are not re-checked',
        );
    }
  }
  return found;
}

/**
 * Runs one round now if some program has a policy and this instance gets the lease (no other
 * round under way, none begun within `intervalSeconds`). Resolves with the round's record, or
 * `{ran: false}` when there is nothing to check, another instance has it, or it is not due.
 */
export async function runRecheckRound(
  services: RecheckDeps,
  options: { intervalSeconds?: number; holder?: string; signal?: AbortSignal } = {},
): Promise<RoundOutcome> {
  const programs = await programsWithCheckers(services);
  if (programs.length === 0) return { ran: false };
  const db = services.store.sql;
  const holder = options.holder ?? INSTANCE;
  // A little under the interval, so timer drift never skips a due round.
  const interval = Math.max(0, (options.intervalSeconds ?? services.config.eligibilityRecheckSeconds) * 0.9);
  if (!(await takeRecheckLease(db, holder, interval, LEASE_SECONDS))) return { ran: false };

  let total = 0;
  for (const { slug } of programs) total += await countPassesToRecheck(db, slug, NOT_ELIGIBLE);
  const id = await startRound(db, total);
  const counts: Counts = { checked: 0, voided: 0, restored: 0, requests: 0, error: null };
  // The round's requests (each program's), and each mint's program, found once for the whole round.
  const reads = newRoundReads();
  services.log.info(
    { event: 'eligibility_round_started', round: id, programs: programs.map((program) => program.slug), total },
    'eligibility re-check round started',
  );
  try {
    for (const { slug, checker } of programs) {
      const before = { ...counts };
      counts.error = await recheckProgram(services, { id, holder, slug, checker, reads, signal: options.signal }, counts);
      services.log.info(
        {
          event: 'eligibility_program_rechecked',
          round: id,
          program: slug,
          checked: counts.checked - before.checked,
          voided: counts.voided - before.voided,
          restored: counts.restored - before.restored,
          requests: counts.requests - before.requests,
        },
        'eligibility re-check of a program done',
      );
      if (counts.error) break;
    }
  } catch (error) {
    counts.error = `stopped: ${(error as Error).message}`;
    services.log.error({ event: 'eligibility_round_failed', round: id, err: (error as Error).message }, 'eligibility re-check round failed');
  } finally {
    counts.requests = reads.tally.requests;
    await finishRound(db, id, counts).catch(() => {});
    await releaseRecheckLease(db, holder).catch(() => {});
  }
  services.log.info(
    { event: 'eligibility_round_finished', round: id, ...counts, total, requestsByMethod: reads.tally.byMethod },
    'eligibility re-check round finished',
  );
  const round = await lastRound(db);
  if (!round) throw new Error(`eligibility round ${id} finished but is not in eligibility_rounds`);
  return { ran: true, round };
}

/**
 * Checks one program's passes, a page at a time, adding to `counts`. Resolves with why the round
 * must stop (shutting down, the RPC failed, the lease lost), or null when the program is done.
 */
async function recheckProgram(
  services: RecheckDeps,
  round: { id: number; holder: string; slug: string; checker: ProgramToRecheck['checker']; reads: RoundReads; signal?: AbortSignal },
  counts: Counts,
): Promise<string | null> {
  const db = services.store.sql;
  type Checked = { page: RecheckPass[]; last: string; verdicts: Promise<Map<string, Verdict>> };
  // Two pages at a time: the next page is read, and its checks begin (its associated accounts'
  // addresses derived, its requests queued in the budget), while this one's wait for their turns
  // and its passes are voided or restored. The budget, not this loop, sets the round's pace.
  const start = async (after: string): Promise<Checked | null> => {
    const page = await passesToRecheck(db, round.slug, after, RECHECK_PAGE, NOT_ELIGIBLE);
    const last = page.at(-1);
    if (!last) return null;
    const verdicts = round.checker.checkMany(
      page.map((pass) => pass.publicKey),
      round.reads,
    );
    // Settled below, or abandoned when the round stops first: never an unhandled rejection.
    verdicts.catch(() => {});
    return { page, last: last.publicKey, verdicts };
  };
  let current = await start('');
  while (current) {
    if (round.signal?.aborted) return 'stopped: the instance is shutting down';
    const next = start(current.last);
    let verdicts: Map<string, Verdict>;
    try {
      verdicts = await current.verdicts;
    } catch (error) {
      next.catch(() => {});
      counts.requests = round.reads.tally.requests;
      services.log.error(
        { event: 'eligibility_round_stopped', round: round.id, program: round.slug, err: (error as Error).message, checked: counts.checked },
        'eligibility re-check stopped: nothing more voided this round',
      );
      return `stopped: ${(error as Error).message}`;
    }
    for (const pass of current.page) await settle(services, pass, verdicts, counts);
    counts.requests = round.reads.tally.requests;
    await recordRoundProgress(db, round.id, counts);
    if (!(await renewRecheckLease(db, round.holder, LEASE_SECONDS))) {
      next.catch(() => {});
      return 'stopped: the lease was taken over by another instance';
    }
    current = await next;
  }
  return null;
}

/**
 * What a verdict means for one pass, as a round and a holder's re-check decide it: voided
 * (`not_eligible`) when its wallet no longer qualifies, restored when one voided that way
 * qualifies again; each change pushed and announced by voidPass and restorePass. A wallet
 * missing from `verdicts` does not qualify.
 */
async function settle(services: RecheckDeps, pass: RecheckPass, verdicts: Map<string, Verdict>, counts: Counts): Promise<void> {
  const eligible = verdicts.get(pass.publicKey)?.eligible === true;
  if (pass.status === 'active' && !eligible) {
    if ((await voidPass(services, pass.serialNumber, NOT_ELIGIBLE, { ifActive: true })).changed) counts.voided++;
  } else if (pass.status === 'voided' && eligible) {
    if ((await restorePass(services, pass.serialNumber, { voidReason: NOT_ELIGIBLE })).changed) counts.restored++;
  }
  counts.checked++;
}

/**
 * Re-checks the passes of these wallets now, outside any round (a transfer seen by a
 * subscription: lib/eligibility/subscriptions.ts): each program's passes of them against its
 * policy, settled as a round settles them. Its requests wait in the budget's `round` lane.
 * Throws as checkMany does when the RPC fails: nothing is decided then.
 */
export async function recheckHolders(
  services: RecheckDeps,
  wallets: string[],
  options: { programs?: ProgramToRecheck[]; reads?: RoundReads } = {},
): Promise<Counts> {
  const counts: Counts = { checked: 0, voided: 0, restored: 0, requests: 0, error: null };
  const programs = options.programs ?? (await programsWithCheckers(services));
  const reads = options.reads ?? newRoundReads();
  const passes = await passesOfWalletsToRecheck(
    services.store.sql,
    programs.map((program) => program.slug),
    wallets,
    NOT_ELIGIBLE,
  );
  for (const { slug, checker } of programs) {
    const mine = passes.filter((pass) => pass.program === slug);
    if (mine.length === 0) continue;
    const verdicts = await checker.checkMany([...new Set(mine.map((pass) => pass.publicKey))], reads);
    for (const pass of mine) await settle(services, pass, verdicts, counts);
  }
  counts.requests = reads.tally.requests;
  return counts;
}

/**
 * Starts the re-check timer of this instance (unless the interval is 0): it looks every
 * min(interval, 60 s) whether a round is due, and runs it if some program has a policy and it gets
 * the lease. It runs without CLAIM_POLICY too: an operator may give any program a policy at any
 * time. Returns the function that stops it (waiting for a round under way).
 */
export function startRechecks(services: RecheckDeps): () => Promise<void> {
  const seconds = services.config.eligibilityRecheckSeconds;
  if (seconds <= 0) return async () => {};
  let running: Promise<unknown> | undefined;
  const stopping = new AbortController();
  const tick = () => {
    if (running || stopping.signal.aborted) return;
    running = runRecheckRound(services, { signal: stopping.signal })
      .catch((error: unknown) =>
        services.log.warn({ event: 'eligibility_round_not_started', err: (error as Error).message }, 'could not start an eligibility re-check round'),
      )
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, Math.min(seconds, MAX_TICK_SECONDS) * 1000);
  timer.unref();
  return async () => {
    // A round under way stops after its current page (at most one check's deadline away).
    stopping.abort();
    clearInterval(timer);
    await running;
  };
}

export type EligibilityStatus = {
  /** The policy's shape; allowlists only as how many addresses they hold. Null: anyone may claim. */
  policy: PolicyDescription | null;
  recheckSeconds: number;
  lastRound: (Omit<RoundRecord, 'startedAt' | 'finishedAt'> & { startedAt: string; finishedAt: string | null }) | null;
};

/** What the operator console shows: the policy and the last re-check round. */
export async function eligibilityStatus(services: {
  config: Pick<Config, 'claimPolicy' | 'eligibilityRecheckSeconds'>;
  store: Pick<LifecycleDeps['store'], 'sql'>;
}): Promise<EligibilityStatus> {
  const round = await lastRound(services.store.sql);
  return {
    policy: services.config.claimPolicy ? describeRule(services.config.claimPolicy) : null,
    recheckSeconds: services.config.eligibilityRecheckSeconds,
    lastRound: round ? { ...round, startedAt: round.startedAt.toISOString(), finishedAt: round.finishedAt?.toISOString() ?? null } : null,
  };
}
