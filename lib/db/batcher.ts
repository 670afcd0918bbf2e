// Group commit: operations that arrive together run as one SQL statement. Under load most of a
// statement's cost is per statement, not per row (on the embedded database, PGlite's per-call
// overhead was about half the CPU of a claim; on PostgreSQL, a round trip and a commit), so one
// statement for 30 claims costs little more than one for a single claim. Written here because
// the libraries that batch (dataloader and the like) batch reads by key and cap nothing; this
// needs writes, a bound on statements in flight, items that must not share a statement, and a
// fall-back when one item spoils its batch.

export type BatcherOptions<Item, Result> = {
  /** Runs one batch as one statement; answers one result per item, in order. */
  run: (items: Item[]) => Promise<Result[]>;
  /** Most items in one statement. */
  maxBatch: number;
  /** Statements in flight at once: 1 for the embedded database, the pool's size for PostgreSQL. */
  concurrency: number;
  /**
   * Items with the same key never run at once, in one statement or in two (e.g. two claims of one
   * wallet: in one INSERT … ON CONFLICT they would not see each other, in two concurrent ones
   * they could deadlock). The later one waits for a later batch.
   */
  key?: (item: Item) => string;
  /**
   * Whether a failed statement of several items is worth running again item by item: yes for an
   * error one item may have caused (a constraint), no for a database that is down or busy.
   */
  retryAlone?: (error: unknown) => boolean;
};

type Pending<Item, Result> = { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void };

export class Batcher<Item, Result> {
  private queue: Pending<Item, Result>[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Keys of the items in statements in flight. */
  private readonly busyKeys = new Set<string>();

  constructor(private readonly options: BatcherOptions<Item, Result>) {}

  submit(item: Item): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Flushes on setImmediate, after the poll phase: every request whose bytes arrived in the same
   * turn of the event loop joins the batch, and an idle server adds no delay beyond that turn.
   * While all slots are busy, arrivals queue up and leave together when a slot frees.
   */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.options.concurrency || this.queue.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.options.concurrency && this.queue.length > 0) {
        const batch = this.take();
        // Every queued item's key is in flight: the batch that holds it reschedules when it ends.
        if (batch.length === 0) return;
        void this.flush(batch);
      }
    });
  }

  /** The next batch: up to maxBatch items in arrival order, at most one per key, none whose key is in flight. */
  private take(): Pending<Item, Result>[] {
    const { key, maxBatch } = this.options;
    if (!key) return this.queue.splice(0, maxBatch);
    const batch: Pending<Item, Result>[] = [];
    const rest: Pending<Item, Result>[] = [];
    const keys = new Set<string>();
    for (const pending of this.queue) {
      const k = key(pending.item);
      if (batch.length < maxBatch && !keys.has(k) && !this.busyKeys.has(k)) {
        keys.add(k);
        batch.push(pending);
      } else {
        rest.push(pending);
      }
    }
    this.queue = rest;
    for (const k of keys) this.busyKeys.add(k);
    return batch;
  }

  private async flush(batch: Pending<Item, Result>[]): Promise<void> {
    this.inFlight += 1;
    try {
      await this.runBatch(batch);
    } finally {
      this.inFlight -= 1;
      const { key } = this.options;
      if (key) for (const pending of batch) this.busyKeys.delete(key(pending.item));
      this.schedule();
    }
  }

  /**
   * A failed statement of several items is run again one item at a time (when retryAlone says
   * so), so an item that spoils a statement fails alone and the others still succeed.
   */
  private async runBatch(batch: Pending<Item, Result>[]): Promise<void> {
    let results: Result[];
    try {
      results = await this.options.run(batch.map((pending) => pending.item));
      if (results.length !== batch.length) throw new Error(`batch answered ${results.length} results for ${batch.length} items`);
    } catch (error) {
      if (batch.length === 1 || !(this.options.retryAlone?.(error) ?? true)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      await Promise.all(batch.map((pending) => this.runBatch([pending])));
      return;
    }
    // One result per item, in order (the length is checked above).
    const answers = results.values();
    for (const pending of batch) {
      const answer = answers.next();
      if (answer.done) pending.reject(new Error('the batch answered fewer results than items'));
      else pending.resolve(answer.value);
    }
  }
}
