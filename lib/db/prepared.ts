// Named prepared statements on PostgreSQL. An unnamed statement is parsed and planned on every
// call; for the service's hot statements (a claim, a check-in, a credential read) that was most of
// PostgreSQL's time: in the check-in benchmark, parse and bind (where planning happens) took 0.81
// of an admission statement's 1.42 ms. Named, a statement is parsed once per connection, and after
// five executions PostgreSQL may settle on a generic plan (plan_cache_mode auto), which our
// statements suit: their inputs are arrays and jsonb, so no value changes the plan.
//
// node-postgres prepares a named statement on each connection the first time it runs there and
// keeps it for the connection's life (maxLifetimeSeconds bounds that); it has no limit of its own,
// hence the cap here. Only texts seen twice get a name, so one-off texts (a migration, a query
// built for one call) never take a slot.
import { createHash } from 'node:crypto';

/** Distinct statement texts that get a name: the service has a few dozen hot ones. */
const MAX_NAMED = 256;
/** Texts counted while waiting for their second sighting; forgotten all at once past this. */
const MAX_COUNTED = 4096;

export class PreparedNames {
  private readonly named = new Map<string, string>();
  private counted = new Set<string>();
  /** Bumped when PostgreSQL refuses a cached plan: every text gets a new name, prepared anew. */
  private generation = 0;

  /** The name to run `text` under, or undefined to run it unnamed. */
  nameOf(text: string): string | undefined {
    const name = this.named.get(text);
    if (name !== undefined) return name;
    if (this.named.size >= MAX_NAMED) return undefined;
    if (!this.counted.has(text)) {
      if (this.counted.size >= MAX_COUNTED) this.counted = new Set();
      this.counted.add(text);
      return undefined;
    }
    this.counted.delete(text);
    const fresh = `wpc${this.generation}_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    this.named.set(text, fresh);
    return fresh;
  }

  /**
   * After a migration by another instance changed a table a prepared statement returns, PostgreSQL
   * refuses it ("cached plan must not change result type", 0A000) on every connection that holds it.
   * New names make each connection prepare the statements again.
   */
  forgetAll(): void {
    this.generation += 1;
    this.named.clear();
  }
}

/** PostgreSQL's refusal of a prepared statement whose result type a schema change altered. */
export function isStalePlan(error: unknown): boolean {
  const e = error as { code?: string; message?: string };
  return e.code === '0A000' && /cached plan must not change result type/.test(e.message ?? '');
}
