// Migrated databases made once per test run (vitest's global setup) and copied for each test
// (scripts/support/scratch-database.ts): creating and migrating a database costs seconds, a copy
// a fraction of one. The PGlite template is a DATA_DIR that also holds the development signing
// chain, so a copy skips making RSA keys too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../lib/db/client';
import { ensureDevelopmentChain } from '../../lib/passes/certificates';
import { createScratchDatabase, TEMPLATE_ENV } from '../../scripts/support/scratch-database';

/** Makes the templates for this run and names them in process.env; resolves with their removal. */
export async function makeTemplates(): Promise<() => Promise<void>> {
  // Each project's global setup calls this; the first call's templates serve them all.
  if (process.env[TEMPLATE_ENV.dataDir]) return async () => {};
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-template-'));
  const database = process.env.TEST_DATABASE_URL ? await createScratchDatabase() : undefined;
  const migrate = async (databaseUrl?: string) => (await openDatabase({ dataDir, databaseUrl, poolSize: 1, timeoutMs: 30_000 })).close();
  ensureDevelopmentChain(dataDir);
  await Promise.all([migrate(), database && migrate(database.url)]);
  process.env[TEMPLATE_ENV.dataDir] = dataDir;
  if (database) process.env[TEMPLATE_ENV.database] = new URL(database.url).pathname.slice(1);
  return async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  };
}
