// A fresh, empty database on a PostgreSQL server, dropped again after: for database tests and the
// benchmark, so that runs never see each other's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { withDefaultUser } from '../../lib/db/client';

/** A new, empty database on the TEST_DATABASE_URL server (or `adminUrl`'s), dropped again after the test. */
export async function createScratchDatabase(
  adminUrl: string = process.env.TEST_DATABASE_URL!,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `wpc_test_${randomBytes(6).toString('hex')}`;
  await asAdmin(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => asAdmin(adminUrl, `drop database if exists ${name} with (force)`),
  };
}

async function asAdmin(adminUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: withDefaultUser(adminUrl) });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

