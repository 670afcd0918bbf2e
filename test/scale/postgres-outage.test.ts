// PostgreSQL stops under a running instance (a PostgreSQL of the test's own, started with initdb
// and pg_ctl on a spare port): the service says so quickly with 503s, comes back by itself when
// the database does, and never leaves a claim half-written.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, ServerProcess } from '../../scripts/support/server-process';
import { runsAlone } from '../server/support/alone';
import { claimBurst, issue, postClaim, signedClaim, signedClaims, TestWallet, tally } from './support/claims';
import { testPool, usedWithoutPass, walletStates } from './support/invariants';
import { findPostgresBinaries, PrivatePostgres } from './support/private-postgres';
import { requireService } from './support/requirements';

// It times the service's answers: no other file beside it.
runsAlone();

const SERVER_PORT = 3620;
const POSTGRES_PORT = 55432;

requireService('PostgreSQL server binaries', findPostgresBinaries().problem, 'The PostgreSQL outage tests');

/** Runs `request` and returns its response with how long it took. */
async function timed(request: () => Promise<Response>): Promise<{ response: Response; ms: number }> {
  const started = performance.now();
  const response = await request();
  return { response, ms: performance.now() - started };
}

describe('PostgreSQL stops under a running instance', () => {
  let postgresServer: PrivatePostgres;
  let server: ServerProcess;
  let sql: pg.Pool;
  let databaseUrl: string;

  beforeAll(async () => {
    postgresServer = await PrivatePostgres.create(POSTGRES_PORT);
    const admin = testPool(postgresServer.adminUrl);
    await admin.query('create database claims');
    await admin.end();
    databaseUrl = postgresServer.adminUrl.replace(/\/postgres$/, '/claims');
    // The test's own connection: it must not count as the service's, and must survive restarts.
    sql = testPool(databaseUrl);
    server = await ServerProcess.start(SERVER_PORT, { DATABASE_URL: databaseUrl, RATE_LIMIT_PER_MINUTE: '0' });
  });

  afterAll(async () => {
    await server?.stop();
    server?.removeDataDir();
    await sql?.end();
    postgresServer?.destroy();
  });

  it('answers 503 while the database is down, then works again without a restart', async () => {
    const pending = await signedClaim(server); // issued before the outage, claimed during and after it
    postgresServer.stop('immediate');

    const health = await timed(() => server.fetch('/health'));
    expect(health.response.status).toBe(503);
    expect(await health.response.json()).toEqual({ status: 'unhealthy' });
    expect(health.ms).toBeLessThan(3000);

    const init = await timed(() => server.fetch(`/api/v1/claim/init?publicKey=${new TestWallet().publicKey}`));
    expect(init.response.status).toBe(503);
    expect(init.response.headers.get('content-type')).toBe('application/problem+json');
    expect(await init.response.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(init.ms).toBeLessThan(5000);

    const claim = await timed(() => postClaim(server, pending));
    expect(claim.response.status).toBe(503);
    expect(await claim.response.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(claim.ms).toBeLessThan(5000);

    postgresServer.start();
    await eventually(async () => ((await server.fetch('/health')).status === 200 ? true : undefined), 15_000, '/health is 200 again');
    // The claim that failed changed nothing: the same signed message now gives the pass.
    const retried = await postClaim(server, pending);
    expect(retried.status).toBe(201);
    const { downloadUrl } = (await retried.json()) as { downloadUrl: string };
    expect((await server.fetch(new URL(downloadUrl).pathname + new URL(downloadUrl).search)).status).toBe(200);
    expect((await postClaim(server, await signedClaim(server))).status).toBe(201);
  });

  it.each([
    ['PostgreSQL is stopped', (pg: PrivatePostgres) => pg.stop('immediate'), (pg: PrivatePostgres) => pg.start()],
    [
      "the service's connections are killed",
      async (_pg: PrivatePostgres, admin: pg.Pool) => {
        await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'wallet-pass-claim'`);
      },
      () => {},
    ],
  ] as const)('never leaves a claim half-written when %s during a burst of claims', async (_, cut, restore) => {
    const bodies = await signedClaims(server, 240);
    const burst = claimBurst([server], bodies, 24);
    // Cut once claims are under way.
    await eventually(async () => (server.logs.filter((l) => l.event === 'pass_claimed').length > 20 ? true : undefined), 10_000, 'claims under way');
    await cut(postgresServer, sql);
    const outcomes = await burst;
    await restore(postgresServer);
    await eventually(async () => ((await server.fetch('/health')).status === 200 ? true : undefined), 15_000, '/health is 200 again');

    // Every client saw a pass or a 503: no 500, no hang.
    const statuses = tally(outcomes.map((o) => o.status));
    expect(
      [...statuses.keys()].every((status) => status === 201 || status === 503),
      JSON.stringify([...statuses]),
    ).toBe(true);
    expect(statuses.get(201)).toBeGreaterThan(0);

    // The database agrees: each wallet's message is either unused with no pass, or used with its pass.
    expect(await usedWithoutPass(sql)).toBe(0);
    const states = await walletStates(
      sql,
      bodies.map((b) => b.publicKey),
    );
    for (const outcome of outcomes) {
      const state = states.get(outcome.publicKey)!;
      expect(state.used, outcome.publicKey).toBe(state.hasPass);
      if (outcome.status === 201) expect(state).toEqual({ used: true, hasPass: true });
    }
    // Every 201 the clients saw is downloadable.
    for (const outcome of outcomes.filter((o) => o.status === 201).slice(0, 20)) {
      const url = new URL(outcome.downloadUrl!);
      expect((await server.fetch(url.pathname + url.search)).status).toBe(200);
    }
    // And a claim that was answered 503 without being committed can simply be retried.
    const unused = outcomes.find((o) => o.status === 503 && !states.get(o.publicKey)!.used);
    if (unused) expect((await postClaim(server, bodies.find((b) => b.publicKey === unused.publicKey)!)).status).toBe(201);
    expect((await issue(server, new TestWallet())).length).toBeGreaterThan(0);
  });
});
