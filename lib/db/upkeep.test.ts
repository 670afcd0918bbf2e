// The embedded database has no autovacuum: the service's upkeep gathers its statistics and
// vacuums it, by autovacuum's rules, so the planner sees the tables as they are.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratchDataDir } from '@/scripts/support/scratch-database';
import { type Database, openDatabase } from './client';
import { upkeep } from './upkeep';

describe('upkeep of the embedded database', () => {
  let dataDir: string;
  let database: Database;

  beforeAll(async () => {
    dataDir = scratchDataDir();
    database = await openDatabase({ dataDir, poolSize: 1, timeoutMs: 5_000 });
  });

  afterAll(async () => {
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const statistics = async (table: string) => {
    await database.query('select pg_stat_force_next_flush()', []);
    return (
      await database.query<{ live: number; dead: number; analyzed: boolean }>(
        `select n_live_tup::int as live, n_dead_tup::int as dead, last_analyze is not null as analyzed from pg_stat_user_tables where relname = $1`,
        [table],
      )
    )[0];
  };

  it('analyzes a table that grew, and the planner then knows its size', async () => {
    await database.query(
      `insert into passes (serial_number, download_id_hash, public_key, wallet_type, claimed_at)
       select md5(i::text), md5('d' || i), md5('k' || i), 'apple', now() from generate_series(1, 2000) i`,
      [],
    );
    const done = await upkeep(database);
    expect(done.analyzed).toContain('passes');
    expect(await statistics('passes')).toMatchObject({ analyzed: true, live: 2000 });
    const [estimate] = await database.query<{ reltuples: number }>(`select reltuples::int as reltuples from pg_class where relname = 'passes'`, []);
    expect(estimate?.reltuples).toBe(2000);
  });

  it('leaves alone what did not change enough since, and vacuums a table whose rows died', async () => {
    expect(await upkeep(database)).toEqual({ analyzed: [], vacuumed: [] });

    // 60 of 2,000 changed: under 50 + a tenth, nothing to do.
    await database.query(`update passes set wallet_type = 'google' where serial_number in (select serial_number from passes order by 1 limit 60)`, []);
    expect(await upkeep(database)).toEqual({ analyzed: [], vacuumed: [] });

    await database.query(`delete from passes where serial_number in (select serial_number from passes order by 1 limit 1000)`, []);
    expect((await statistics('passes'))?.dead).toBeGreaterThanOrEqual(1000);
    const done = await upkeep(database);
    expect(done).toMatchObject({ analyzed: ['passes'], vacuumed: ['passes'] });
    expect(await statistics('passes')).toMatchObject({ dead: 0, live: 1000 });
  });
});
