// Who may claim (CLAIM_POLICY), as the operator console shows it: the policy and its re-checks.
import { eligibilityStatus } from '../../eligibility/recheck';
import { type Endpoint, endpoint } from '../endpoint';
import { eligibilityStatusSchema } from './eligibility.schemas';

export const ELIGIBILITY_ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/eligibility',
    operationId: 'operatorEligibility',
    tag: 'Operators',
    summary: 'Claim policy and re-checks',
    description:
      'The claim policy (CLAIM_POLICY) as rules, each allowlist given only as how many addresses it holds, ' +
      'and the last re-check round: when it ran, how many passes it checked of how many (its progress while it ' +
      'runs), voided (reason `not_eligible`) and restored, how many RPC requests it sent, and why it stopped if ' +
      'the Solana RPC did not answer. A round covers the ' +
      'passes of every program with a policy (the default program: CLAIM_POLICY). Re-checks run ' +
      'every ELIGIBILITY_RECHECK_SECONDS on one instance at a time.',
    auth: 'operator',
    responses: { 200: { description: 'The policy and the last round.', json: eligibilityStatusSchema } },
    problems: [],
    handle: async (_, { services }) => ({ json: await eligibilityStatus(services) }),
  }),
];
