// The claim path's eligibility gate: a wallet that does not meet CLAIM_POLICY is refused with
// not_eligible, and an RPC that cannot answer in time is a 503, before anything is stored.
import { AppError } from '../errors';
import type { Logger } from '../log';
import { ChainUnavailable } from './chain';
import type { EligibilityChecker, Verdict } from './checker';

/** What the gate needs: the checker (none without CLAIM_POLICY) and the log. */
export type EligibilityDeps = { eligibility?: EligibilityChecker; log: Logger };

/** Throws not_eligible or service_unavailable unless the wallet meets the policy (callers skip it when there is none). */
export async function requireEligible(services: EligibilityDeps, wallet: string): Promise<void> {
  const checker = services.eligibility;
  if (!checker) return;
  let verdict: Verdict;
  try {
    verdict = await checker.check(wallet);
  } catch (error) {
    if (!(error instanceof ChainUnavailable)) throw error;
    services.log.warn({ event: 'eligibility_rpc_unavailable', err: error.message }, 'could not check eligibility: answered 503');
    throw new AppError('service_unavailable', 'Eligibility to claim could not be checked: the Solana RPC is not answering. Nothing was stored; retry shortly.');
  }
  if (!verdict.eligible) {
    throw new AppError('not_eligible', `This wallet cannot claim a pass yet: to be eligible, it needs to ${verdict.missing}.`);
  }
}
