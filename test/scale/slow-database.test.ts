// A slow database (a PostgreSQL of the test's own): the pool stays within DATABASE_POOL_SIZE, a
// held lock or a frozen server gives 503s within the timeout instead of a pile-up, and the
// service recovers by itself.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, ServerProcess, sleep } from '../../scripts/support/server-process';
import { runsAlone } from '../server/support/alone';
import { type ClaimOutcome, claimBurst, postClaim, signedClaim, signedClaims, TestWallet, tally } from './support/claims';
import { scalar, testPool, usedWithoutPass, walletStates } from './support/invariants';
import { findPostgresBinaries, PrivatePostgres } from './support/private-postgres';
import { requireService } from './support/requirements';

// It times the service's answers: no other file beside it.
runsAlone();

const SERVER_PORT = 3660;
const POSTGRES_PORT = 55433;
const POOL_SIZE = 3;
const TIMEOUT_MS = 1000;
/** Claims of the first burst in flight at once: more than the pool, so some wait for a connection. */
const EARLY_CONCURRENCY = 6;

requireService('PostgreSQL server binaries', findPostgresBinaries().problem, 'The slow-database tests');

describe(`a slow database, with DATABASE_POOL_SIZE=${POOL_SIZE} and DATABASE_TIMEOUT_MS=${TIMEOUT_MS}`, () => {
  let postgresServer: PrivatePostgres;
  let server: ServerProcess;
  let sql: pg.Pool;

  beforeAll(async () => {
    postgresServer = await PrivatePostgres.create(POSTGRES_PORT);
    const admin = testPool(postgresServer.adminUrl);
    await admin.query('create database claims');
    await admin.end();
    const databaseUrl = postgresServer.adminUrl.replace(/\/postgres$/, '/claims');
    sql = testPool(databaseUrl);
    server = await ServerProcess.start(SERVER_PORT, {
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      DATABASE_TIMEOUT_MS: String(TIMEOUT_MS),
      RATE_LIMIT_PER_MINUTE: '0',
    });
  });

  afterAll(async () => {
    await server?.stop();
    server?.removeDataDir();
    await sql?.end();
    postgresServer?.destroy();
  });

  const serviceConnections = () => scalar(sql, `select count(*) as value from pg_stat_activity where application_name = 'wallet-pass-claim'`);

  it('never opens more connections than DATABASE_POOL_SIZE, however many requests wait', async () => {
    const bodies = await signedClaims(server, 60);
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, await serviceConnections());
        await sleep(5);
      }
    })();
    const outcomes = await claimBurst([server], bodies, 40);
    sampling = false;
    await sampler;
    expect(Object.fromEntries(tally(outcomes.map((o) => o.status)))).toEqual({ 201: 60 });
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(POOL_SIZE);
  });

  it('answers 503 at the lock timeout while a table is locked, keeps /health up, and recovers when it is released', async () => {
    const body = await signedClaim(server);
    const locker = await sql.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table sign_in_messages in access exclusive mode');
      const started = performance.now();
      const [claim, init] = await Promise.all([postClaim(server, body), server.fetch(`/api/v1/claim/init?publicKey=${new TestWallet().publicKey}`)]);
      const elapsed = performance.now() - started;
      expect([claim.status, init.status]).toEqual([503, 503]);
      expect((await claim.json()).code).toBe('service_unavailable');
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 1500);
      // The database itself answers: a lock is not an outage.
      expect((await server.fetch('/health')).status).toBe(200);
    } finally {
      await locker.query('rollback');
      locker.release();
    }
    expect((await postClaim(server, body)).status).toBe(201);
    expect(server.logs.some((line) => line.event === 'database_busy')).toBe(true);
  });

  it('answers 503 at the connect timeout when the server accepts connections but never answers them', async () => {
    // No open connection left in the pool: the next request has to open one.
    await sql.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'wallet-pass-claim'`);
    await sleep(300);
    const before = server.logs.length;
    postgresServer.freeze();
    try {
      const started = performance.now();
      const health = await server.fetch('/health');
      expect(health.status).toBe(503);
      expect(performance.now() - started).toBeLessThan(TIMEOUT_MS + 1000);
      const outage = await server.waitForLog((line) => line.event === 'database_unavailable' && server.logs.indexOf(line) >= before, 5000);
      // The driver's connect timeout, or the service's own deadline just after it on a loaded machine.
      expect(outage.err).toMatch(/connection timeout|no answer in time/);
    } finally {
      postgresServer.thaw();
    }
    await eventually(async () => ((await server.fetch('/health')).status === 200 ? true : undefined), 10_000, '/health is 200 again');
  });

  it('answers fast 503s while the server is frozen, commits late only claims already sent, and recovers', async () => {
    const bodies = await signedClaims(server, 60);
    const claimed = () => server.logs.filter((line) => line.event === 'pass_claimed').length;
    const before = claimed();
    const logsBefore = server.logs.length;
    const early = claimBurst([server], bodies.slice(0, 30), EARLY_CONCURRENCY);
    await eventually(async () => (claimed() >= before + 3 ? true : undefined), 10_000, 'claims under way');
    let late: ClaimOutcome[] = [];
    postgresServer.freeze();
    try {
      // /health says so within 3 s even while claims are stuck.
      const started = performance.now();
      const health = await server.fetch('/health');
      expect(health.status).toBe(503);
      expect(await health.json()).toEqual({ status: 'unhealthy' });
      expect(performance.now() - started).toBeLessThan(3000);

      // Once the service knows, requests do not queue for the timeout: they answer at once, but
      // for the one let through to find out whether the database is back. (Without that, each
      // would wait DATABASE_TIMEOUT_MS for a pooled connection.)
      await server.waitForLog((line) => line.event === 'database_unavailable' && server.logs.indexOf(line) >= logsBefore, 5000);
      late = await claimBurst([server], bodies.slice(30), 30);
      expect(tally(late.map((o) => o.status)).get(503)).toBe(30);
      const times = late.map((o) => o.ms).sort((a, b) => a - b);
      expect(times[15]!).toBeLessThan(TIMEOUT_MS);
      expect(times[29]!).toBeLessThan(TIMEOUT_MS + 1500);

      const earlyOutcomes = await early;
      expect(earlyOutcomes.every((o) => o.status === 201 || o.status === 503)).toBe(true);
    } finally {
      postgresServer.thaw();
    }
    await eventually(async () => ((await server.fetch('/health')).status === 200 ? true : undefined), 10_000, '/health is 200 again');
    await sleep(500); // anything still queued from the freeze has run by now

    // Every claim is whole. A claim answered 503 can still take effect only if its statement had
    // reached the server before it froze: at most one statement per pooled connection, and
    // claims that arrive together share a statement (lib/db/batcher.ts), so at most the early
    // burst's claims in flight. Claims that were waiting for a connection, or turned away at
    // once (the whole late burst), never reach it.
    const states = await walletStates(
      sql,
      bodies.map((b) => b.publicKey),
    );
    expect(await usedWithoutPass(sql)).toBe(0);
    const earlyOutcomes = await early;
    const answered503 = [...earlyOutcomes, ...late].filter((o) => o.status === 503);
    const committedAnyway = answered503.filter((o) => states.get(o.publicKey)!.used);
    expect(committedAnyway.length).toBeLessThanOrEqual(EARLY_CONCURRENCY);
    expect(late.filter((o) => states.get(o.publicKey)!.used)).toEqual([]);

    // And everything works again: a 503'd claim that was not committed is simply retried.
    const retry = answered503.find((o) => !states.get(o.publicKey)!.used)!;
    const retried = await postClaim(server, bodies.find((b) => b.publicKey === retry.publicKey)!);
    expect(retried.status).toBe(201);
    expect(server.logs.filter((line) => line.event === 'database_recovered').length).toBeGreaterThan(0);
  });
});
