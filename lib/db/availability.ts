// Whether the database can be reached, learned from the operations themselves. Once one fails to
// reach it, the others fail at once (503) instead of each queueing behind a dead pool for the
// full timeout, and one operation at a time goes through as a probe; the first that reaches the
// database again closes the outage. Written here rather than taken from a circuit-breaker library
// (opossum): those trip on an error percentage over a time window, which under heavy traffic
// trips late; this trips on the first unreachable error and probes one request at a time.

export type AvailabilityEvents = {
  onDown(error: unknown): void;
  onUp(): void;
  /** The database could not do the work now (a lost connection, a timeout, a lock): a 503, not an outage. */
  onBusy(error: unknown): void;
};

/**
 * How an operation ended. reached: the server answered (rows, or an error of its own).
 * unreachable: no connection could be made, or no answer came in time. inconclusive: it ended
 * without telling (a connection lost mid-way, no free connection in time).
 */
export type Outcome = 'reached' | 'unreachable' | 'inconclusive';

export class DatabaseAvailability {
  private down = false;
  private probing = false;

  constructor(private readonly events: Pick<AvailabilityEvents, 'onDown' | 'onUp'>) {}

  /** Whether an operation may go to the database now; when down, only a single probe may. */
  admit(): { admitted: boolean; probe: boolean } {
    if (!this.down) return { admitted: true, probe: false };
    if (this.probing) return { admitted: false, probe: false };
    this.probing = true;
    return { admitted: true, probe: true };
  }

  settle(probe: boolean, outcome: Outcome, error?: unknown): void {
    if (probe) this.probing = false;
    if (outcome === 'reached' && this.down) {
      this.down = false;
      this.events.onUp();
    } else if (outcome === 'unreachable' && !this.down) {
      this.down = true;
      this.events.onDown(error);
    }
  }
}
