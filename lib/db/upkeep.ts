// What autovacuum does on a PostgreSQL server, done for the embedded database. PGlite runs
// PostgreSQL as a single backend with no autovacuum, so on its own it never gathers statistics and
// never vacuums. Without statistics the planner guesses, and its guesses grow worse with the
// tables: the check-in statement once walked every admission of the day to find one pass's first
// (docs/benchmarks.md, "Check-ins: the first admission, found by one probe"). Without vacuum, the
// dead rows of the busiest tables (jobs, sign-in messages) stay in their indexes.
//
// The thresholds are autovacuum's defaults: a table is analyzed once 50 rows plus a tenth of it
// changed since the last time, and vacuumed once 50 rows plus a fifth of it are dead. One table per
// statement, with a turn of the event loop between: the single backend serves nothing else while a
// statement runs (measured: 160 ms to analyze 100,000 passes, 31 ms for 50,000 check-ins).
import type { Queryable } from './sql';

/** autovacuum_analyze_threshold and autovacuum_analyze_scale_factor. */
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;
/** autovacuum_vacuum_threshold and autovacuum_vacuum_scale_factor. */
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;

export type UpkeepDone = { analyzed: string[]; vacuumed: string[] };

type TableActivity = { table: string; live: number; dead: number; changed: number; analyzed: boolean };

/** The tables of the public schema and how much changed in each (PGlite keeps these counters too). */
async function tableActivity(db: Queryable): Promise<TableActivity[]> {
  // A backend hands its counters over at most once a second, and PGlite's may wait far longer for
  // the timer that would do it: this one hands them over as the statement ends.
  await db.query('select pg_stat_force_next_flush()', []);
  const rows = await db.query<{ table: string; live: string | number; dead: string | number; changed: string | number; analyzed: boolean }>(
    `select relname as "table", n_live_tup as live, n_dead_tup as dead, n_mod_since_analyze as changed,
            (last_analyze is not null or last_autoanalyze is not null) as analyzed
     from pg_stat_user_tables where schemaname = 'public' order by relname`,
    [],
  );
  return rows.map((row) => ({ table: row.table, live: Number(row.live), dead: Number(row.dead), changed: Number(row.changed), analyzed: row.analyzed }));
}

const needsAnalyze = (t: TableActivity) => t.changed > ANALYZE_BASE + ANALYZE_SCALE * t.live || (!t.analyzed && t.live > 0);
const needsVacuum = (t: TableActivity) => t.dead > VACUUM_BASE + VACUUM_SCALE * t.live;

/** A table name as an SQL identifier: names come from the catalogue, quoted all the same. */
const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** Vacuums and analyzes the tables that need it by autovacuum's rules; answers which. */
export async function upkeep(db: Queryable): Promise<UpkeepDone> {
  const done: UpkeepDone = { analyzed: [], vacuumed: [] };
  for (const table of await tableActivity(db)) {
    const vacuum = needsVacuum(table);
    const analyze = needsAnalyze(table);
    if (!vacuum && !analyze) continue;
    const command = vacuum && analyze ? 'vacuum (analyze)' : vacuum ? 'vacuum' : 'analyze';
    await db.query(`${command} ${identifier(table.table)}`);
    if (vacuum) done.vacuumed.push(table.table);
    if (analyze) done.analyzed.push(table.table);
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return done;
}
