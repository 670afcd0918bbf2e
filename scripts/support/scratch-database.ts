// Fresh databases for tests and the benchmark, so that runs never see each other's rows: a
// database on a PostgreSQL server, dropped again after, and a DATA_DIR for embedded PGlite. Under
// vitest both start as copies of the run's migrated templates (test/support/templates.ts), named
// in the environment that the test workers and the servers they start inherit.
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { withDefaultUser } from '../../lib/db/client';

/** The environment variables naming the templates: a migrated DATA_DIR, and a migrated database on the TEST_DATABASE_URL server. */
export const TEMPLATE_ENV = { dataDir: 'WPC_TEST_TEMPLATE_DATA_DIR', database: 'WPC_TEST_TEMPLATE_DATABASE' } as const;

/** What a DATA_DIR copy takes from the template: not the download id key, which each DATA_DIR makes for itself. */
const COPIED_FROM_TEMPLATE = ['pglite', 'dev-certificates'];

/**
 * A new database on the TEST_DATABASE_URL server (or `adminUrl`'s), dropped again after the test:
 * empty, or a copy of the database named `template` (which nothing may be connected to).
 */
export async function createScratchDatabase(
  adminUrl: string = process.env.TEST_DATABASE_URL!,
  template?: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `wpc_test_${randomBytes(6).toString('hex')}`;
  await asAdmin(adminUrl, template ? `create database ${name} template ${template}` : `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => asAdmin(adminUrl, `drop database if exists ${name} with (force)`),
  };
}

/** The migrated database scratch databases can copy, when the test run made one. */
export function templateDatabase(): string | undefined {
  return process.env[TEMPLATE_ENV.database];
}

/**
 * A new DATA_DIR: holding a copy of the template's migrated database and development signing
 * chain when the test run made a template, else empty.
 */
export function scratchDataDir(prefix = 'wpc-test-'): string {
  const dataDir = mkdtempSync(path.join(tmpdir(), prefix));
  const template = process.env[TEMPLATE_ENV.dataDir];
  if (template) {
    for (const entry of COPIED_FROM_TEMPLATE) cpSync(path.join(template, entry), path.join(dataDir, entry), { recursive: true });
  }
  return dataDir;
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
