// The database check: PostgreSQL at DATABASE_URL, or the embedded database in DATA_DIR without
// disturbing a service that holds it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Config } from '../../config';
import { DatabaseOpenError, embeddedDatabaseHolder, lockDataDir, withDefaultUser } from '../../db/client';
import { bad, type CheckLine, ok } from './check-line';
import { describeUrl, errorSummary, redact } from './describe';

/** PostgreSQL when DATABASE_URL is set, otherwise the embedded database in DATA_DIR. */
export async function checkDatabase(config: Config, timeoutMs: number): Promise<CheckLine[]> {
  return [config.databaseUrl ? await checkPostgres(config.databaseUrl, timeoutMs) : await checkEmbeddedDatabase(config, timeoutMs)];
}

/** Prevents: "the service starts but every claim answers 503" (PostgreSQL down, wrong host or credentials). */
async function checkPostgres(url: string, timeoutMs: number): Promise<CheckLine> {
  const server = `PostgreSQL at ${describeUrl(url)}`;
  const client = new pg.Client({
    connectionString: withDefaultUser(url),
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    application_name: 'wallet-pass-claim doctor',
  });
  client.on('error', () => {}); // a connection dropping after the answer is not this check's concern
  try {
    await client.connect();
    await client.query('select 1');
    return ok(`database answers select 1 (${server})`);
  } catch (error) {
    return bad(
      `database (${server})`,
      `does not answer select 1 (${redact(errorSummary(error), url)})`,
      'start PostgreSQL, or correct DATABASE_URL (host, port, database, user, password)',
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Prevents: "the service will not start" (a damaged embedded database), without disturbing one that runs.
 *
 * The embedded database belongs to one process: the service holds DATA_DIR/pglite.lock while it
 * runs, and a second process opening the same directory would corrupt it. So the doctor never
 * opens a database held by a live process; it asks that process's GET /health instead (200 means
 * the service and its database answer). When nobody holds it, the doctor takes the lock the way
 * the service does, opens it, runs select 1, closes it and releases the lock: a service started
 * in that second fails with "in use by process <doctor pid>" and can simply be started again.
 */
async function checkEmbeddedDatabase(config: Config, timeoutMs: number): Promise<CheckLine> {
  const holder = embeddedDatabaseHolder(config.dataDir);
  if (holder !== undefined) return checkRunningService(config, holder, timeoutMs);
  const dir = path.join(config.dataDir, 'pglite');
  if (!existsSync(dir)) return ok(`embedded database: none in DATA_DIR yet (${config.dataDir}); the service creates it at first start`);
  const what = `embedded database in DATA_DIR answers select 1 (${config.dataDir})`;
  let release: () => void;
  try {
    release = lockDataDir(config.dataDir);
  } catch (error) {
    const racer = embeddedDatabaseHolder(config.dataDir);
    if (error instanceof DatabaseOpenError && racer !== undefined) return checkRunningService(config, racer, timeoutMs);
    return bad(what, `it cannot be locked (${errorSummary(error)})`, 'check the permissions of DATA_DIR');
  }
  let client: PGlite | undefined;
  try {
    client = await PGlite.create(dir);
    await client.query('select 1');
    return ok(what);
  } catch (error) {
    return bad(what, `it cannot be opened (${errorSummary(error)})`, 'restore DATA_DIR/pglite from a backup, or move it away to start afresh');
  } finally {
    await client?.close().catch(() => {});
    release();
  }
}

/** Prevents: "the doctor says fine but the site is down": the process holding the database must answer. */
async function checkRunningService(config: Config, pid: number, timeoutMs: number): Promise<CheckLine> {
  // The holder runs on this machine: ask it directly unless a public origin was configured.
  const base = config.publicBaseUrl === `http://localhost:${config.port}` ? `http://127.0.0.1:${config.port}` : config.publicBaseUrl;
  const url = `${base}/health`;
  const what = `embedded database in use by the running service (pid ${pid}); GET ${url} answers 200`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await response.body?.cancel();
    if (response.status === 200) return ok(what);
    return bad(what, `it answered ${response.status}`, `read the log of process ${pid}: its database does not answer`);
  } catch (error) {
    return bad(
      what,
      `it does not answer (${errorSummary(error)})`,
      `if process ${pid} is not this service, stop it or give this service another DATA_DIR; if it is, check PORT and PUBLIC_BASE_URL`,
    );
  }
}
