// Pushes fan out from the durable queue: a pass held on 1,000 devices is voided (voidPass, as the
// operator's endpoint and the eligibility re-check call it), which returns at once, and every device gets its push from one of two instances sharing
// PostgreSQL, even though one instance is killed (SIGKILL) while the pushes are under way: the
// jobs it had claimed run again on the other once their lease has passed. Needs the machine's
// PostgreSQL (TEST_DATABASE_URL) and the production build.

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevelopmentChain } from '@/lib/passes/certificates';
import { createScratchDatabase, templateDatabase } from '@/scripts/support/scratch-database';
import { eventually, ServerProcess } from '@/scripts/support/server-process';
import { scalar, testPool } from '../scale/support/invariants';
import { missingEnv, requireService, sharedPostgresUrl } from '../scale/support/requirements';
import { runsAlone } from '../server/support/alone';
import { freePort } from '../support/server';
import { ApnsStandIn } from '../support/stand-ins/apns';
import { device, installPass, newPushToken, PassController } from './support';

// It times the service's answers: no other file beside it.
runsAlone();

requireService('PostgreSQL', missingEnv('TEST_DATABASE_URL', 'postgres://127.0.0.1:5432/test'), 'The push fan-out tests');

const DEVICES = 1000;

describe('pushes fan out from the queue on two instances sharing PostgreSQL', () => {
  let dataDir: string;
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let sql: pg.Pool;
  let apns: ApnsStandIn;
  let instances: ServerProcess[] = [];
  let passes: PassController;

  beforeAll(async () => {
    // One DATA_DIR for both: the same development signing chain (so the same pass type
    // certificate pushes from either) and the same PASSKIT_TOKEN_KEY below.
    dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-fanout-'));
    const signing = ensureDevelopmentChain(dataDir);
    database = await createScratchDatabase(sharedPostgresUrl(), templateDatabase());
    sql = testPool(database.url);
    // Each push takes 100 ms to answer, so both instances always have pushes in flight: the one
    // killed dies holding some, whose leases must run out before the other runs them again.
    apns = await ApnsStandIn.start({ clientCa: signing.wwdrCertPem, topic: signing.passTypeIdentifier, answerDelayMs: 100 });
    const ports = [await freePort(), await freePort()];
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: database.url,
      PUBLIC_BASE_URL: `http://127.0.0.1:${ports[0]}`,
      RATE_LIMIT_PER_MINUTE: '0',
      // One pass on 1,000 devices: the cap (10 by default) raised to its most.
      DEVICES_PER_PASS: String(DEVICES),
      APNS_URL: apns.url,
      NODE_EXTRA_CA_CERTS: apns.caFile,
      PASSKIT_TOKEN_KEY: randomBytes(32).toString('base64'),
      LOG_LEVEL: 'warn',
    };
    instances = [];
    for (const port of ports) instances.push(await ServerProcess.start(port, env));
    passes = await PassController.open(env);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await passes?.close();
    await apns?.close();
    await sql?.end();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`voids a pass held on ${DEVICES} devices at once; every device is pushed although an instance dies mid-way`, async () => {
    const [a, b] = instances as [ServerProcess, ServerProcess];
    const installed = await installPass(b);
    const tokens = Array.from({ length: DEVICES }, () => newPushToken());
    // Registered through either instance, 25 at a time.
    for (let i = 0; i < tokens.length; i += 25) {
      const batch = tokens.slice(i, i + 25).map((token, j) => device((i + j) % 2 ? a : b, installed).register(token));
      const statuses = await Promise.all(batch.map(async (response) => (await response).status));
      expect(new Set(statuses)).toEqual(new Set([201]));
    }
    expect(await scalar(sql, 'select count(*)::int as value from device_registrations where serial_number = $1', [installed.serialNumber])).toBe(DEVICES);

    const started = Date.now();
    const voided = await passes.void(installed.serialNumber, 'fan-out test');
    const answeredMs = Date.now() - started;
    expect(voided.changed).toBe(true);
    // The answer does not wait for the pushes: they are rows in the queue.
    expect(answeredMs).toBeLessThan(1500);

    // Kill instance A once both instances have pushes in flight (leased, not done): the instance
    // that fanned out is woken at once, the other finds the jobs at its next poll.
    await eventually(
      async () =>
        (await scalar(
          sql,
          `select count(distinct split_part(locked_by, '/', 2))::int as value from jobs where kind = 'apns.push' and done_at is null and locked_until > now()`,
        )) >= 2
          ? true
          : undefined,
      30_000,
      'pushes in flight on both instances',
    );
    a.signal('SIGKILL');
    await a.exited;
    const pushedAtKill = new Set(apns.pushes.map((p) => p.token)).size;
    expect(pushedAtKill).toBeLessThan(DEVICES);
    // The jobs the dead instance had claimed: leased to it, not done.
    const heldByTheDead = await scalar(sql, `select count(*)::int as value from jobs where kind = 'apns.push' and done_at is null and locked_until > now()`);
    // As if the dead instance's leases (60 s) had run out: B may now claim its jobs again. That a
    // job whose lease ran out goes to the next claim is lib/queue/queue.test.ts's to show.
    await sql.query(`update jobs set locked_until = now() where kind = 'apns.push' and done_at is null and split_part(locked_by, '/', 2) = $1`, [
      String(a.pid),
    ]);

    // Every device gets its push (at least once), from B; nothing is left in the queue.
    const expected = new Set(tokens);
    await eventually(
      async () => {
        const pushed = new Set(apns.pushes.filter((p) => p.status === 200).map((p) => p.token));
        return [...expected].every((token) => pushed.has(token)) ? true : undefined;
      },
      150_000,
      `all ${DEVICES} devices pushed`,
    );
    // The dead instance's jobs run again on B.
    await eventually(
      async () => ((await scalar(sql, `select count(*)::int as value from jobs where kind = 'apns.push' and done_at is null`)) === 0 ? true : undefined),
      120_000,
      'no push left in the queue',
    );
    const retried = await scalar(sql, `select count(*)::int as value from jobs where kind = 'apns.push' and attempts > 1`);
    console.log(`fan-out: ${pushedAtKill} devices pushed when A was killed, ${heldByTheDead} jobs leased then, ${retried} run again`);
    // A died holding claimed pushes (it was killed while both instances were busy): they ran again.
    expect(retried).toBeGreaterThan(0);
    expect(await scalar(sql, `select count(*)::int as value from jobs where kind = 'apns.push' and failed_at is not null`)).toBe(0);
    for (const push of apns.pushes) {
      expect(push.topic).toBe(installed.passTypeIdentifier);
      expect(push.body).toBe('{}');
    }
  }, 300_000);
});
