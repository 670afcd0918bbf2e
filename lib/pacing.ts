// One pacer per outside service and instance: every request to that service asks for its turn,
// and turns come one interval apart, never in bursts, since providers count requests in any
// one-second window. Waiting requests sit in FIFO lanes, and an earlier lane in `lanes` goes
// first. A provider's 429 holds every lane for its Retry-After: it counts all of this instance's
// requests together. Used by the Solana RPC budget (lib/eligibility/rpc-budget.ts) and the Google
// Wallet API client (lib/passes/google-api.ts).
//
// Some requests are also limited apart (DAS: Helius allows 2 a second on its free plan, against 10
// for the rest). Such a request names a `gate`, a second pacer of its own rate: it is let through
// only at a moment both allow, and both count it then. A gated request that must wait for its gate
// lets others of its lane go first, rather than hold the whole pacer.

/** A provider's Retry-After is honoured up to this long; past it the callers' own deadlines decide. */
const MAX_HOLD_MS = 60_000;

// biome-ignore lint/suspicious/noExplicitAny: a gate may pace lanes of its own
type Gate = Pacer<any>;

type Waiter = { resolve: () => void; reject: (reason: unknown) => void; signal?: AbortSignal; onAbort?: () => void; gate?: Gate };

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
  /** When the timer fires (monotonic ms). */
  private timerAt = 0;

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
   * Resolves when a request of `lane` may be sent (and `gate`, if given, allows it too); rejects
   * with the signal's reason if it aborts first (the caller's deadline), and the turn goes to the
   * next in line.
   */
  take(lane: Lane, signal?: AbortSignal, gate?: Gate): Promise<void> {
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

  /** When `waiter` may go at the earliest: this pacer's turn, and its gate's. */
  private readyAt(waiter: Waiter): number {
    return waiter.gate ? Math.max(this.startAt(), waiter.gate.startAt()) : this.startAt();
  }

  /** A request goes now: the next turn moves on. A gate counts the request in its lane too, if it has that lane. */
  private grant(lane: string, now: number): void {
    const due = this.startAt();
    this.nextAt = (this.steady && now - due < this.intervalMs ? due : now) + this.intervalMs;
    if (Object.hasOwn(this.sent, lane)) this.sent[lane as Lane]++;
  }

  private schedule(): void {
    if (this.waiting === 0) return;
    // The soonest any waiter may go: this pacer's turn, unless every waiter waits for its gate too.
    let at = Number.POSITIVE_INFINITY;
    search: for (const lane of this.lanes) {
      for (const waiter of this.queues[lane]) {
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
    // A timer may fire a little early; never before the turn. Earlier lanes first; within a lane
    // the first waiter whose gate (if any) allows it now.
    if (now >= this.startAt()) {
      for (const lane of this.lanes) {
        const queue = this.queues[lane];
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
