// One RPC budget per instance (SOLANA_RPC_RPS): every request the service sends to the Solana RPC
// (the checks at init and claim, re-check rounds, anything later) asks this pacer for its turn.
// Providers count requests in any one-second window, so requests are paced evenly, one every
// 1.05 / RPS seconds, never in bursts: the 5 % of slack absorbs the jitter of a request's trip
// from this process to the provider (11 requests spaced 1/RPS apart span exactly one second at
// our end and may land inside one at theirs). When requests wait, the claim path's go first: two
// FIFO lanes, `claim` before `round`. A provider's 429 holds the whole budget (every lane) for its
// Retry-After, since the provider counts all of this instance's requests together.
//
// Some requests are also limited apart (DAS: Helius allows 2 a second on its free plan, against 10
// for the rest). Such a request names a `gate`, a second budget of its own rate: it is let through
// only at a moment both allow, and both count it then. A gated request that must wait for its gate
// lets others of its lane go first, rather than hold the whole budget.
//
// Written here rather than taken from a library. Checked (Node 20.20, 2026-11-26): `bottleneck`
// 2.19.5 paces evenly (`minTime`) with priorities but has had no release since 2019; `p-queue` 10
// needs Node 22; `p-queue` 9.x would pace evenly with priorities (`intervalCap: 1` with `strict`
// sliding windows, `priority`, `signal`) but is ESM-only and would be a new dependency for ~80
// lines whose every case (the hold on a 429, a waiting request dropped at its deadline, the
// slack) is tested here: test/contract/rpc-budget.test.ts.

/** Who is waiting: the claim path (init and claim checks) goes before re-check rounds. */
export type RpcLane = 'claim' | 'round';

/** The pacing interval is 1/RPS stretched by this much (see above). */
export const PACING_SLACK = 1.05;
/** A provider's Retry-After is honoured up to this long; past it the checks waiting fail at their deadlines anyway. */
const MAX_HOLD_MS = 60_000;

type Waiter = { resolve: () => void; reject: (reason: unknown) => void; signal?: AbortSignal; onAbort?: () => void; gate?: RpcBudget };

export class RpcBudget {
  /** Milliseconds between two requests. */
  readonly intervalMs: number;
  /** Requests let through so far, by lane. */
  readonly sent: Record<RpcLane, number> = { claim: 0, round: 0 };
  /** When the next request may start (monotonic ms). */
  private nextAt = 0;
  /** No request starts before this (a provider's Retry-After). */
  private heldUntil = 0;
  private readonly lanes: Record<RpcLane, Waiter[]> = { claim: [], round: [] };
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires (monotonic ms). */
  private timerAt = 0;

  constructor(
    readonly rps: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(rps > 0)) throw new RangeError('SOLANA_RPC_RPS must be above 0');
    this.intervalMs = (1000 / rps) * PACING_SLACK;
  }

  /** Requests waiting for their turn. */
  get waiting(): number {
    return this.lanes.claim.length + this.lanes.round.length;
  }

  /**
   * Resolves when a request of `lane` may be sent; rejects with the signal's reason if it aborts
   * first (the check's deadline), and the turn goes to the next in line.
   */
  take(lane: RpcLane, signal?: AbortSignal, gate?: RpcBudget): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.now();
    if (this.waiting === 0 && now >= this.startAt() && (!gate || now >= gate.startAt())) {
      this.grant(lane, now);
      gate?.grant(lane, now);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, gate };
      if (signal) {
        waiter.onAbort = () => {
          const queue = this.lanes[lane];
          const at = queue.indexOf(waiter);
          if (at !== -1) queue.splice(at, 1);
          if (this.waiting === 0) this.clearTimer();
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.lanes[lane].push(waiter);
      this.schedule();
    });
  }

  /** A provider asked us to wait (HTTP 429, Retry-After): no request of any lane starts for `ms`. */
  hold(ms: number): void {
    this.heldUntil = Math.max(this.heldUntil, this.now() + Math.min(Math.max(0, ms), MAX_HOLD_MS));
    this.clearTimer();
    this.schedule();
  }

  private startAt(): number {
    return Math.max(this.nextAt, this.heldUntil);
  }

  /** When `waiter` may go at the earliest: this budget's turn, and its gate's. */
  private readyAt(waiter: Waiter): number {
    return waiter.gate ? Math.max(this.startAt(), waiter.gate.startAt()) : this.startAt();
  }

  private grant(lane: RpcLane, now: number): void {
    this.nextAt = now + this.intervalMs;
    this.sent[lane]++;
  }

  private schedule(): void {
    if (this.waiting === 0) return;
    // The soonest any waiter may go: this budget's turn, unless every waiter waits for its gate too.
    let at = Number.POSITIVE_INFINITY;
    search: for (const queue of [this.lanes.claim, this.lanes.round]) {
      for (const waiter of queue) {
        at = Math.min(at, this.readyAt(waiter));
        if (!waiter.gate) break search;
      }
    }
    // A timer set for a gated waiter's later turn is brought forward when one that may go sooner arrives.
    if (this.timer && this.timerAt <= at) return;
    this.clearTimer();
    this.timerAt = at;
    this.timer = setTimeout(() => this.release(), Math.max(0, at - this.now()));
  }

  private release(): void {
    this.timer = undefined;
    const now = this.now();
    // A timer may fire a little early; never before the turn. Claims first; within a lane the
    // first waiter whose gate (if any) allows it now.
    if (now >= this.startAt()) {
      for (const lane of ['claim', 'round'] as const) {
        const queue = this.lanes[lane];
        const at = queue.findIndex((waiter) => !waiter.gate || now >= waiter.gate.startAt());
        if (at === -1) continue;
        const [waiter] = queue.splice(at, 1) as [Waiter];
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        this.grant(lane, now);
        waiter.gate?.grant(lane, now);
        waiter.resolve();
        break;
      }
    }
    this.schedule();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
