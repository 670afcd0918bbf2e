// A program as the public sees it, on its claim page (/p/<slug>) and at GET /api/v1/programs/{slug}:
// its name, design, images and window, whether it is sold out, and who may claim in words. Not its
// policy (an allowlist is private), nor its supply or how many passes are issued: how fast a
// program is claimed is the operator's to tell; visitors need only know whether they can claim.
import type { Clock } from '../clock';
import type { Config } from '../config';
import { programImageKinds } from '../db/program-images';
import { findProgram, type Program } from '../db/programs';
import type { Store } from '../db/store';
import { parseProgramPolicy } from '../eligibility/policy';
import { AppError } from '../errors';
import { policyInWords } from './policy-words';
import { checkOpen, programNotFound } from './programs';
import type { Design } from './schema';

export type PublicProgramDeps = {
  config: Pick<Config, 'claimPolicy'>;
  store: Pick<Store, 'sql'>;
  clock: Clock;
};

/** Whether a wallet may claim now, and if not, why (the claims' own rule: openProgram). */
export type Availability = { kind: 'open' } | { kind: 'not-open'; opensAt: string } | { kind: 'closed' } | { kind: 'sold-out' };

export type PublicProgram = {
  slug: string;
  name: string;
  status: 'live' | 'closed';
  opensAt: string | null;
  closesAt: string | null;
  soldOut: boolean;
  /** null: the default program, whose passes take each wallet's brand design. */
  design: Design | null;
  /** Paths of the program's images on this service, by kind. */
  images: Partial<Record<string, string>>;
  /** Who may claim, in words (lib/programs/policy-words.ts). */
  eligibility: string;
  availability: Availability;
};

/** The path an image of a program is served at (GET, public). */
export const programImagePath = (slug: string, kind: string) => `/api/v1/programs/${slug}/images/${kind}`;

/**
 * A live or closed program as the public sees it; unknown and draft programs are not found. Read
 * fresh, not from the claims' one-second directory: a visitor who reloads sees a sale that just ended.
 */
export async function publicProgram(deps: PublicProgramDeps, slug: string): Promise<PublicProgram> {
  const [program, kinds] = await Promise.all([findProgram(deps.store.sql, slug), programImageKinds(deps.store.sql, slug)]);
  if (!program || program.status === 'draft') throw programNotFound();
  return {
    slug: program.slug,
    name: program.name,
    status: program.status,
    opensAt: program.opensAt?.toISOString() ?? null,
    closesAt: program.closesAt?.toISOString() ?? null,
    soldOut: program.supply !== null && program.issued >= program.supply,
    design: program.design,
    images: Object.fromEntries(kinds.map((kind) => [kind, programImagePath(slug, kind)])),
    eligibility: eligibilityInWords(deps, program),
    availability: availabilityOf(program, deps.clock.now()),
  };
}

/** The claims' own rule (checkOpen), as what the page shows. */
function availabilityOf(program: Program, now: number): Availability {
  try {
    checkOpen(program, now);
    return { kind: 'open' };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === 'sold_out') return { kind: 'sold-out' };
    if (error.code === 'program_closed') return error.extra.opensAt ? { kind: 'not-open', opensAt: error.extra.opensAt } : { kind: 'closed' };
    throw error;
  }
}

function eligibilityInWords(deps: PublicProgramDeps, program: Program): string {
  // The default program without a policy of its own is CLAIM_POLICY's.
  if (!program.policy) return policyInWords(program.slug === 'default' ? deps.config.claimPolicy : undefined);
  const parsed = parseProgramPolicy(program.policy);
  // Stored policies were checked when saved; one that no longer parses admits no one (programs.ts).
  return 'rule' in parsed ? policyInWords(parsed.rule) : 'Nobody for now: this program’s rule is being fixed';
}
