// Webhook deliveries by real server processes: a delivery that failed before a restart of the
// service arrives once after it (the queue is in the database), and two instances sharing
// PostgreSQL deliver each event once (FOR UPDATE SKIP LOCKED). The receiver is a real local
// HTTP server; signatures are checked with the standardwebhooks library's own Webhook.verify.
import { rmSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../lib/db/client';
import { createScratchDatabase, scratchDataDir, templateDatabase } from '../../scripts/support/scratch-database';
import { eventually, type ServerProcess } from '../../scripts/support/server-process';
import { startServer } from '../support/server';
import { newWebhookSecret, WebhookReceiver } from '../support/stand-ins/webhook-receiver';
import { postClaim, signedClaim, TestWallet, tally } from './support/claims';
import { scalar, testPool } from './support/invariants';
import { missingEnv, requireService, sharedPostgresUrl } from './support/requirements';

const secret = newWebhookSecret();

const claimOn = async (server: ServerProcess) => {
  const wallet = new TestWallet();
  const response = await postClaim(server, await signedClaim(server, wallet));
  expect(response.status).toBe(201);
  return wallet;
};

const verified = (request: { body: string; headers: Record<string, unknown> }) =>
  new Webhook(secret).verify(request.body, request.headers as Record<string, string>) as { type: string; data: { publicKey: string } };

describe('a delivery across a restart of the service (embedded database)', () => {
  let receiver: WebhookReceiver;
  const dataDir = scratchDataDir('wpc-webhooks-');
  const servers: ServerProcess[] = [];
  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async () => {
    const server = await startServer({ DATA_DIR: dataDir, WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: secret, JOB_RETRY_BASE_MS: '200' });
    servers.push(server);
    return server;
  };

  it('fails while the receiver is down, then arrives exactly once after the restart', async () => {
    receiver.answer = () => 503;
    const first = await start();
    const wallet = await claimOn(first);
    await eventually(async () => (receiver.requests.length >= 2 ? true : undefined), 15_000, 'two failed attempts');
    await first.stop();
    const id = receiver.requests[0]!.headers['webhook-id'];
    expect(receiver.requests.every((request) => request.headers['webhook-id'] === id && request.status === 503)).toBe(true);

    receiver.answer = () => 200;
    const second = await start();
    const accepted = await eventually(async () => receiver.accepted()[0], 20_000, 'delivered after the restart');
    expect(verified(accepted)).toMatchObject({ type: 'pass.created', data: { publicKey: wallet.publicKey } });
    expect(accepted.headers['webhook-id']).toBe(id);
    // Stopped, the service has sent all it was sending; its job is done, so nothing more comes after either.
    await second.stop();
    expect(receiver.accepted()).toHaveLength(1);
    const database = await openDatabase({ dataDir, poolSize: 1, timeoutMs: 30_000 });
    try {
      expect(await database.query('select count(*)::int as n from jobs where done_at is null and failed_at is null')).toEqual([{ n: 0 }]);
    } finally {
      await database.close();
    }
  }, 180_000); // two start-ups of the embedded database on a busy machine
});

describe('two instances sharing PostgreSQL', () => {
  let receiver: WebhookReceiver;
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let instances: ServerProcess[] = [];
  beforeAll(async () => {
    requireService('PostgreSQL', missingEnv('TEST_DATABASE_URL', 'postgres://127.0.0.1:5432/test'), 'The two-instance webhook test');
    receiver = await WebhookReceiver.start();
    receiver.delayMs = 30;
    database = await createScratchDatabase(sharedPostgresUrl(), templateDatabase());
    const env = { DATABASE_URL: database.url, WEBHOOK_URL: receiver.url, WEBHOOK_SECRET: secret, JOB_RETRY_BASE_MS: '200' };
    instances = await Promise.all([startServer(env), startServer(env)]);
  });
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.dispose()));
    await receiver?.close();
    await database?.drop();
  });

  it('deliver each event exactly once', async () => {
    const wallets = await Promise.all(Array.from({ length: 20 }, (_, i) => claimOn(instances[i % 2]!)));
    await eventually(async () => (receiver.accepted().length >= 20 ? true : undefined), 30_000, 'twenty deliveries');
    // Every job done: neither instance has a delivery left to send, so nothing more comes.
    const sql = testPool(database.url);
    try {
      const jobsLeft = () => scalar(sql, 'select count(*) as value from jobs where done_at is null and failed_at is null');
      await eventually(async () => ((await jobsLeft()) === 0 ? true : undefined), 30_000, 'no job left');
    } finally {
      await sql.end();
    }
    expect(receiver.requests).toHaveLength(20);
    const ids = tally(receiver.requests.map((request) => request.headers['webhook-id']));
    expect([...ids.values()].every((count) => count === 1)).toBe(true);
    expect(receiver.requests.map((request) => verified(request).data.publicKey).sort()).toEqual(wallets.map((wallet) => wallet.publicKey).sort());
  });
});
