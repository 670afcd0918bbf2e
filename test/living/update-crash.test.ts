// An update survives a SIGKILL of one of two instances sharing PostgreSQL: a message to a program
// of 10,000 devices is cut into batches, both instances push batches at once, one is killed while
// it holds some; once their leases have run out, the other runs them again. Every device is pushed
// (none skipped), the update counts each device once and finishes once, and a device is pushed
// twice only in a batch the dead instance held. Needs the machine's PostgreSQL (TEST_DATABASE_URL)
// and the production build.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevelopmentChain } from '@/lib/passes/certificates';
import { DEVICES_PER_BATCH } from '@/lib/updates/fan-out';
import { createScratchDatabase, templateDatabase } from '@/scripts/support/scratch-database';
import { insertPasses, insertRegistrations } from '@/scripts/support/seed-passes';
import { eventually, ServerProcess } from '@/scripts/support/server-process';
import { scalar, testPool } from '../scale/support/invariants';
import { missingEnv, requireService, sharedPostgresUrl } from '../scale/support/requirements';
import { runsAlone } from '../server/support/alone';
import { freePort } from '../support/server';
import { ApnsStandIn } from '../support/stand-ins/apns';
import { TestWallet } from '../support/wallet';
import { operatorToken } from './support';

runsAlone();

requireService('PostgreSQL', missingEnv('TEST_DATABASE_URL', 'postgres://127.0.0.1:5432/test'), 'The update crash test');

const PASSES = 2500;
const DEVICES_PER_PASS = 4;
const DEVICES = PASSES * DEVICES_PER_PASS;

describe('an update on two instances sharing PostgreSQL, one killed mid-update', () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let sql: pg.Pool;
  let apns: ApnsStandIn;
  let instances: ServerProcess[] = [];
  const operator = new TestWallet();

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-update-crash-'));
    const signing = ensureDevelopmentChain(dataDir);
    database = await createScratchDatabase(sharedPostgresUrl(), templateDatabase());
    sql = testPool(database.url);
    // Each push takes 500 ms to answer: both instances hold batches in flight for a while.
    apns = await ApnsStandIn.start({ clientCa: signing.wwdrCertPem, topic: signing.passTypeIdentifier, answerDelayMs: 500, record: false });
    const ports = [await freePort(), await freePort()];
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      PUBLIC_BASE_URL: `http://127.0.0.1:${ports[0]}`,
      RATE_LIMIT_PER_MINUTE: '0',
      OPERATOR_WALLETS: operator.publicKey,
      APNS_URL: apns.url,
      NODE_EXTRA_CA_CERTS: apns.caFile,
      PASSKIT_TOKEN_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
    };
    await sql.query(`insert into programs (slug, name, status) values ('crowd', 'Crowd', 'live')`);
    const serials = await insertPasses(
      sql,
      Array.from({ length: PASSES }, () => new TestWallet().publicKey),
      'crowd',
    );
    await insertRegistrations(sql, serials, DEVICES_PER_PASS);
    instances = [];
    for (const port of ports) instances.push(await ServerProcess.start(port, env));
  }, 180_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await apns?.close();
    await sql?.end();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`pushes all ${DEVICES} devices, counts each once and finishes once, although an instance dies holding batches`, async () => {
    const [a, b] = instances as [ServerProcess, ServerProcess];
    const token = await operatorToken(a, operator);
    const sent = await a.fetch('/api/v1/operator/programs/crowd/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ text: 'The venue changed: see the back of your pass.' }),
    });
    expect(sent.status).toBe(202);
    const { id, devices } = (await sent.json()) as { id: string; devices: number };
    expect(devices).toBe(DEVICES);

    const leasedBy = `select count(distinct split_part(locked_by, '/', 2))::int as value from jobs
      where kind = 'update.batch' and done_at is null and locked_until > now()`;
    await eventually(async () => ((await scalar(sql, leasedBy)) >= 2 ? true : undefined), 60_000, 'batches in flight on both instances');
    a.signal('SIGKILL');
    await a.exited;
    const deliveredAtKill = apns.deliveries.size;
    expect(deliveredAtKill).toBeLessThan(DEVICES);
    const heldByTheDead = await scalar(
      sql,
      `select count(*)::int as value from jobs where kind in ('update.batch', 'update.plan') and done_at is null and locked_until > now() and split_part(locked_by, '/', 2) = $1`,
      [String(a.pid)],
    );
    // As if the dead instance's leases (60 s) had run out: B may now claim its jobs again. That a
    // job whose lease ran out goes to the next claim is lib/queue/queue.test.ts's to show.
    await sql.query(`update jobs set locked_until = now() where done_at is null and split_part(locked_by, '/', 2) = $1`, [String(a.pid)]);

    const done = await eventually(
      async () => {
        const response = await b.fetch(`/api/v1/operator/updates/${id}`, { headers: { authorization: `Bearer ${token}` } });
        const update = (await response.json()) as { status: string; devicesTotal: number; devicesPushed: number; devicesFailed: number };
        return update.status === 'done' ? update : undefined;
      },
      180_000,
      'the update done',
    );
    expect(done).toMatchObject({ devicesTotal: DEVICES, devicesPushed: DEVICES, devicesFailed: 0 });
    // Every device pushed: none skipped.
    const tokens = (await sql.query<{ t: string }>(`select push_token as t from device_registrations`)).rows.map((row) => row.t);
    expect(tokens).toHaveLength(DEVICES);
    expect(tokens.filter((t) => !apns.deliveries.has(t))).toEqual([]);
    const duplicates = [...apns.deliveries.values()].filter((n) => n > 1).length;
    console.log(
      `update crash: ${deliveredAtKill} devices pushed when A was killed, ${heldByTheDead} jobs it held, ${duplicates} devices pushed twice (of ${DEVICES})`,
    );
    // Twice only within the batches the dead instance held.
    expect(duplicates).toBeLessThanOrEqual(heldByTheDead * DEVICES_PER_BATCH);
    expect(await scalar(sql, `select count(*)::int as value from update_batches where update_id = $1 and done_at is null`, [id])).toBe(0);
    expect(await scalar(sql, `select count(*)::int as value from jobs where kind like 'update.%' and (done_at is null or failed_at is not null)`)).toBe(0);
  }, 400_000);
});
