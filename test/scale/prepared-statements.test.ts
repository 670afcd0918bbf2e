// PostgreSQL runs the service's repeated statements as named prepared statements (lib/db/prepared.ts).
// A rolling upgrade is where that could show: another instance migrates a table, and a statement
// this instance prepared before returns a different row type, which PostgreSQL refuses ("cached
// plan must not change result type"). The instance must keep answering, with the new columns.
import { tmpdir } from 'node:os';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '@/lib/db/client';
import { createScratchDatabase } from '@/scripts/support/scratch-database';
import { testPool } from './support/invariants';
import { missingEnv, requireService } from './support/requirements';

requireService('PostgreSQL (TEST_DATABASE_URL)', missingEnv('TEST_DATABASE_URL', 'postgres://127.0.0.1:5432/test'), 'The prepared-statement tests');

describe('prepared statements on PostgreSQL', () => {
  let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
  let database: Database;
  let other: pg.Pool;

  beforeAll(async () => {
    scratch = await createScratchDatabase();
    database = await openDatabase({ dataDir: tmpdir() /* unused on PostgreSQL */, databaseUrl: scratch.url, poolSize: 2, timeoutMs: 5_000 });
    other = testPool(scratch.url);
    await other.query('create table gauges (id int primary key, reading int)');
    await other.query('insert into gauges values (1, 10), (2, 20)');
  });

  afterAll(async () => {
    await database?.close();
    await other?.end();
    await scratch?.drop();
  });

  it('a repeated statement answers each call with its own parameters', async () => {
    for (const id of [1, 2, 1, 2, 1, 2, 1, 2]) {
      const rows = await database.query<{ reading: number }>('select reading from gauges where id = $1', [id]);
      expect(rows).toEqual([{ reading: id * 10 }]);
    }
  });

  it('keeps answering after another instance adds a column to a table the statement returns', async () => {
    const text = 'select * from gauges where id = $1';
    // Often enough that every connection of the pool has it prepared.
    for (let i = 0; i < 8; i++) expect(await database.query(text, [1])).toEqual([{ id: 1, reading: 10 }]);

    await other.query('alter table gauges add column unit text not null default $$kPa$$');

    for (let i = 0; i < 4; i++) expect(await database.query(text, [2])).toEqual([{ id: 2, reading: 20, unit: 'kPa' }]);
  });

  it('runs a text of several statements without parameters, as before', async () => {
    await database.query('update gauges set reading = reading + 1 where id = 1; update gauges set reading = reading + 1 where id = 2');
    await database.query('update gauges set reading = reading + 1 where id = 1; update gauges set reading = reading + 1 where id = 2');
    expect(await database.query('select id, reading from gauges order by id', [])).toEqual([
      { id: 1, reading: 12 },
      { id: 2, reading: 22 },
    ]);
  });
});
