// One RPC budget per instance (SOLANA_RPC_RPS): every request the service sends to the Solana RPC
// (the checks at init and claim, re-check rounds, anything later) asks this pacer for its turn.
// Providers count requests in any one-second window, so requests are paced evenly, one every
// 1.05 / RPS seconds, never in bursts: the 5 % of slack absorbs the jitter of a request's trip
// from this process to the provider (11 requests spaced 1/RPS apart span exactly one second at
// our end and may land inside one at theirs). When requests wait, the claim path's go first: two
// FIFO lanes, `claim` before `round`. A provider's 429 holds the whole budget (every lane) for its
// Retry-After, since the provider counts all of this instance's requests together.
//
// Some requests are also limited apart (DAS: SOLANA_DAS_RPS): such a request names a `gate`, a
// second budget of that rate, and goes at a moment both allow (lib/pacing.ts).
//
// Written here rather than taken from a library. Checked (Node 20.20, 2026-11-26): `bottleneck`
// 2.19.5 paces evenly (`minTime`) with priorities but has had no release since 2019; `p-queue` 10
// needs Node 22; `p-queue` 9.x would pace evenly with priorities (`intervalCap: 1` with `strict`
// sliding windows, `priority`, `signal`) but is ESM-only and would be a new dependency for ~80
// lines whose every case (the hold on a 429, a waiting request dropped at its deadline, the
// slack) is tested here: test/contract/rpc-budget.test.ts. The pacing itself is lib/pacing.ts,
// shared with the Google Wallet API client.

import { Pacer } from '../pacing';

/** Who is waiting: the claim path (init and claim checks) goes before re-check rounds. */
export type RpcLane = 'claim' | 'round';

/** The pacing interval is 1/RPS stretched by this much (see above). */
export const PACING_SLACK = 1.05;

export class RpcBudget extends Pacer<RpcLane> {
  constructor(rps: number, now?: () => number) {
    super({ rps, lanes: ['claim', 'round'], slack: PACING_SLACK, setting: 'SOLANA_RPC_RPS', now });
  }
}
