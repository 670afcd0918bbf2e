// One pacer per outside service and instance: every request to that service asks for its turn,
// and turns come one interval apart, never in bursts, since providers count requests in any
// one-second window. Waiting requests sit in FIFO lanes, and an earlier lane in `lanes` goes
// first. A provider's 429 holds every lane for its Retry-After: it counts all of this instance's
// requests together. Used by the Solana RPC budget (lib/eligibility/rpc-budget.ts) and the Google
// Wallet API client (lib/passes/google-api.ts).

/** A provider's Retry-After is honoured up to this long; past it the callers' own deadlines decide. */
const MAX_HOLD_MS = 60_000;

type Waiter = { resolve: () => void; reject: (reason: unknown) => void; signal?: AbortSignal; onAbort?: () => void };

export type PacerOptions<Lane extends string> = {
  /** Requests per second. */
  rps: number;
  /** The lanes, first served first. */
  lanes: readonly Lane[];
  /** 1/rps is stretched by this factor (1 = exactly rps). */
  slack?: number;
  /** Names the setting in the error of a bad rps. */
  setting: string;
  /**
   * Turns keep to their schedule while requests wait: a timer that fires late (by less than an
   * interval) does not push the later turns back, so the rate is `rps` rather than a little
   * under. The price: a one-second window may then hold rps + 1 requests, so it suits a rate set
   * below the provider's limit (Google's), not one at it (the RPC's, which has `slack` instead).
   */
  steady?: boolean;
  /** Monotonic milliseconds. */
  now?: () => number;
};

export class Pacer<Lane extends string> {
  /** Milliseconds between two requests. */
  readonly intervalMs: number;
  readonly rps: number;
  /** Requests let through so far, by lane. */
  readonly sent: Record<Lane, number>;
  /** When the next request may start (monotonic ms). */
  private nextAt = 0;
  /** No request starts before this (a provider's Retry-After). */
  private heldUntil = 0;
  private readonly queues: Record<Lane, Waiter[]>;
  private readonly lanes: readonly Lane[];
  private readonly now: () => number;
  private readonly steady: boolean;
  private timer: NodeJS.Timeout | undefined;

  constructor(options: PacerOptions<Lane>) {
    if (!(options.rps > 0)) throw new RangeError(`${options.setting} must be above 0`);
    this.rps = options.rps;
    this.intervalMs = (1000 / options.rps) * (options.slack ?? 1);
    this.lanes = options.lanes;
    this.now = options.now ?? (() => performance.now());
    this.steady = options.steady ?? false;
    this.sent = Object.fromEntries(options.lanes.map((lane) => [lane, 0])) as Record<Lane, number>;
    this.queues = Object.fromEntries(options.lanes.map((lane) => [lane, []])) as unknown as Record<Lane, Waiter[]>;
  }

  /** Requests waiting for their turn. */
  get waiting(): number {
    let count = 0;
    for (const lane of this.lanes) count += this.queues[lane].length;
    return count;
  }

  /**
   * Resolves when a request of `lane` may be sent; rejects with the signal's reason if it aborts
   * first (the caller's deadline), and the turn goes to the next in line.
   */
  take(lane: Lane, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = this.now();
    if (this.waiting === 0 && now >= this.startAt()) {
      this.grant(lane, now);
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const queue = this.queues[lane];
          const at = queue.indexOf(waiter);
          if (at !== -1) queue.splice(at, 1);
          if (this.waiting === 0) this.clearTimer();
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.queues[lane].push(waiter);
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

  private grant(lane: Lane, now: number): void {
    const due = this.startAt();
    this.nextAt = (this.steady && now - due < this.intervalMs ? due : now) + this.intervalMs;
    this.sent[lane]++;
  }

  private schedule(): void {
    if (this.timer || this.waiting === 0) return;
    this.timer = setTimeout(() => this.release(), Math.max(0, this.startAt() - this.now()));
  }

  private release(): void {
    this.timer = undefined;
    const now = this.now();
    // A timer may fire a little early; never before the turn.
    if (now >= this.startAt()) {
      const lane = this.lanes.find((l) => this.queues[l].length > 0);
      const waiter = lane === undefined ? undefined : this.queues[lane].shift();
      if (lane !== undefined && waiter) {
        if (waiter.onAbort) waiter.signal?.removeEventListener('abort', waiter.onAbort);
        this.grant(lane, now);
        waiter.resolve();
      }
    }
    this.schedule();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
