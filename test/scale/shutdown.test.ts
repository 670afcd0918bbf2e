// SIGTERM: requests in flight finish, new connections are refused, the database pool closes, and
// the process exits 0 within 10 s. On PostgreSQL (a fresh database on the machine's server), so
// the pool's connections can be watched from the server side.
import { Agent, type IncomingMessage, request } from 'node:http';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, templateDatabase } from '../../scripts/support/scratch-database';
import { eventually, ServerProcess, sleep } from '../../scripts/support/server-process';
import { runsAlone } from '../server/support/alone';
import { signedClaim, TestWallet } from './support/claims';
import { scalar, testPool } from './support/invariants';
import { missingEnv, requireService, sharedPostgresUrl } from './support/requirements';

// It times the service's answers: no other file beside it.
runsAlone();

const PORT = 3640;

requireService('PostgreSQL', missingEnv('TEST_DATABASE_URL', 'postgres://127.0.0.1:5432/test'), 'The SIGTERM tests');

describe('SIGTERM', () => {
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let sql: pg.Pool;
  let server: ServerProcess;

  beforeAll(async () => {
    database = await createScratchDatabase(sharedPostgresUrl(), templateDatabase());
    sql = testPool(database.url);
    server = await ServerProcess.start(PORT, { DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' });
  });

  afterAll(async () => {
    await server?.stop();
    server?.removeDataDir();
    await sql?.end();
    await database?.drop();
  });

  const poolConnections = () =>
    scalar(
      sql,
      `select count(*) as value from pg_stat_activity
       where datname = current_database() and application_name = 'wallet-pass-claim'`,
    );

  it('finishes a slowly uploaded claim, refuses new connections, closes the pool and exits 0', async () => {
    const body = JSON.stringify(await signedClaim(server, new TestWallet()));
    expect(await poolConnections()).toBeGreaterThan(0);

    // A keep-alive connection left idle must not hold the exit back.
    const idle = await fetch(`${server.baseUrl}/health`);
    expect(idle.status).toBe(200);

    // The claim's body trickles in: half now, the rest after SIGTERM.
    // Kept alive after its response, as a load balancer keeps its connections (60 s).
    const agent = new Agent({ keepAlive: true, timeout: 60_000 });
    const upload = request({
      agent,
      host: '127.0.0.1',
      port: PORT,
      method: 'POST',
      path: '/api/v1/claim/wallet-pass',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
      upload.on('response', (response: IncomingMessage) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: text }));
      });
      upload.on('error', reject);
    });
    const half = Math.floor(body.length / 2);
    upload.write(body.slice(0, half));
    await sleep(300);

    const signalled = Date.now();
    server.signal('SIGTERM');
    await server.waitForLog((line) => line.event === 'shutdown');

    // New connections are refused while the upload is still in flight.
    await expect(fetch(`${server.baseUrl}/health`, { signal: AbortSignal.timeout(2000) })).rejects.toThrow();
    expect(server.exitCode).toBeUndefined();

    for (let at = half; at < body.length; at += 16) {
      upload.write(body.slice(at, at + 16));
      await sleep(50);
    }
    upload.end();
    const response = await answered;
    expect(response.status).toBe(201);
    expect(JSON.parse(response.body)).toEqual({ downloadUrl: expect.stringContaining('/download?pass=') });

    const { code } = await server.exited;
    agent.destroy();
    expect(code).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(10_000);
    expect(server.logs.some((line) => line.event === 'shutdown_forced')).toBe(false);
    expect(server.logs.at(-1), server.output()).toMatchObject({ event: 'stopped' });
    // The pool was closed by the process (it logs "stopped" only after closing it), and the
    // server side agrees: no connection of ours is left.
    await eventually(async () => ((await poolConnections()) === 0 ? true : undefined), 5000, 'the pool is closed');
    // The claim that finished during shutdown was committed.
    expect(await scalar(sql, 'select count(*) as value from passes')).toBe(1);
  });
});
