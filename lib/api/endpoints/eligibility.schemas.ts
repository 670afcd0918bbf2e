// The answer of GET /api/v1/operator/eligibility (./eligibility.ts): the policy (allowlists as
// counts only) and the last re-check round.
import { z } from 'zod';
import type { PolicyDescription } from '../../eligibility/checker';

const ruleSchema: z.ZodType<PolicyDescription> = z
  .union([
    z.object({
      kind: z.literal('allow'),
      source: z.enum(['inline', 'file']).meta({ description: '`allow` in the policy, or `allowFile`.' }),
      addresses: z.number().int().meta({ description: 'How many addresses the list holds (the addresses are never shown).' }),
    }),
    z.object({ kind: z.literal('token'), mint: z.string(), minAmount: z.string().meta({ description: 'Base units, as a decimal string.' }) }),
    z.object({
      kind: z.literal('collection'),
      collection: z.string(),
      traits: z
        .record(z.string(), z.string())
        .optional()
        .meta({ description: 'Only assets with all these attributes (trait_type → value), as the DAS API lists them.' }),
    }),
    z.object({ kind: z.literal('group'), group: z.string().meta({ description: 'A Token-2022 group mint: its members’ tokens count.' }) }),
    z.object({
      kind: z.enum(['all', 'any']),
      get rules() {
        return z.array(ruleSchema);
      },
    }),
  ])
  .meta({ id: 'EligibilityRule', description: 'A rule of CLAIM_POLICY, as the console shows it.' }) as z.ZodType<PolicyDescription>;

export const eligibilityStatusSchema = z
  .object({
    policy: ruleSchema.nullable().meta({ description: 'CLAIM_POLICY; null when anyone may claim.' }),
    recheckSeconds: z.number().int().meta({ description: 'ELIGIBILITY_RECHECK_SECONDS; 0: no re-checks.' }),
    lastRound: z
      .object({
        id: z.number().int(),
        startedAt: z.string(),
        finishedAt: z.string().nullable().meta({ description: 'Null while the round is under way.' }),
        checked: z.number().int().meta({
          description: 'Passes checked so far (active, and voided as not_eligible), of every program with a policy; while the round runs, its progress.',
        }),
        total: z.number().int().meta({ description: 'Passes the round set out to check, counted when it started: `checked` of `total` is its progress.' }),
        requests: z.number().int().meta({ description: 'Solana RPC requests the round has sent so far (retries included), within SOLANA_RPC_RPS.' }),
        voided: z.number().int().meta({ description: 'Passes voided with reason not_eligible.' }),
        restored: z.number().int().meta({ description: 'Passes voided as not_eligible earlier and restored now.' }),
        error: z.string().nullable().meta({ description: 'Why the round stopped early (the Solana RPC did not answer); null when it went through.' }),
      })
      .nullable()
      .meta({ description: 'The latest re-check round; null before the first.' }),
  })
  .meta({ id: 'EligibilityStatus' });
