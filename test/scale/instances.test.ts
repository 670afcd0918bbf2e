// Several instances behind one PUBLIC_BASE_URL, sharing one PostgreSQL database and one Redis:
// real server processes on the machine's PostgreSQL (a fresh database) and Redis (a key prefix of
// this run's own).
import { readdirSync } from 'node:fs';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase } from '../../scripts/support/scratch-database';
import { ServerProcess } from '../../scripts/support/server-process';
import { fromIp, postClaim, randomIp, redisPrefix, signedClaim, TestWallet, tally } from './support/claims';
import { scalar, testPool } from './support/invariants';
import { missingEnv, requireService, sharedPostgresUrl, sharedRedisUrl } from './support/requirements';

const PORTS = [3610, 3611, 3612];
const PUBLIC_BASE_URL = 'http://localhost:3610';
const LIMIT_PER_MINUTE = 30;

requireService('PostgreSQL', missingEnv('TEST_DATABASE_URL', 'postgres://127.0.0.1:5432/test'), 'The several-instances tests');
requireService('Redis', missingEnv('TEST_REDIS_URL', 'redis://127.0.0.1:6379'), 'The several-instances tests');

describe('three instances sharing PostgreSQL, Redis and PUBLIC_BASE_URL', () => {
  let instances: ServerProcess[] = [];
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let redisKeys: ReturnType<typeof redisPrefix>;
  let sql: pg.Pool;

  beforeAll(async () => {
    database = await createScratchDatabase(sharedPostgresUrl());
    redisKeys = redisPrefix(sharedRedisUrl()!);
    sql = testPool(database.url);
    // Started together: the migrations run once, under the advisory lock, while the others wait.
    instances = await Promise.all(
      PORTS.map((port) =>
        ServerProcess.start(port, {
          DATABASE_URL: database.url,
          REDIS_URL: sharedRedisUrl()!,
          REDIS_KEY_PREFIX: redisKeys.prefix,
          PUBLIC_BASE_URL,
          RATE_LIMIT_PER_MINUTE: String(LIMIT_PER_MINUTE),
          TRUST_PROXY: '1', // each test gives itself client addresses of its own
          // One key on every instance, as docs/limits.md asks: a returning wallet gets the same
          // URL whichever instance it reaches.
          DOWNLOAD_ID_KEY: 'instances-test-shared-download-id-key',
          PENDING_MESSAGES_PER_KEY: '16', // one test claims with 9 messages of one wallet at once
        }),
      ),
    );
  });

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    for (const instance of instances) instance.removeDataDir();
    await sql?.end();
    await database?.drop();
    await redisKeys?.cleanUp();
  });

  it('all start on one database: the migrations were applied once', async () => {
    for (const instance of instances) {
      expect(await instance.waitForLog((line) => line.event === 'listening')).toMatchObject({ database: 'postgres', rateLimit: 'redis' });
    }
    // Once each: as many rows as there are migration files, not three times as many.
    const migrations = readdirSync('drizzle').filter((file) => file.endsWith('.sql')).length;
    expect(await scalar(sql, 'select count(*) as value from drizzle.__drizzle_migrations')).toBe(migrations);
  });

  it('redeems on one instance a message issued by another, and serves the pass from a third', async () => {
    const [a, b, c] = instances as [ServerProcess, ServerProcess, ServerProcess];
    const ip = fromIp(randomIp());
    const wallet = new TestWallet();
    const body = await signedClaim(a, wallet, ip);
    expect(body.message.startsWith('localhost:3610 wants you to sign in')).toBe(true);

    const claimed = await postClaim(b, body, ip);
    expect(claimed.status).toBe(201);
    const { downloadUrl } = (await claimed.json()) as { downloadUrl: string };
    expect(downloadUrl.startsWith(`${PUBLIC_BASE_URL}/download?pass=`)).toBe(true);

    const download = await c.fetch(downloadUrl.slice(PUBLIC_BASE_URL.length));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/vnd.apple.pkpass');

    // The same wallet comes back through the third instance: the same pass.
    const again = await postClaim(c, await signedClaim(c, wallet, ip), ip);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ downloadUrl });
  });

  it('gives exactly one 201 for 30 concurrent replays of one signed message spread over the instances', async () => {
    const body = await signedClaim(instances[0]!, new TestWallet(), fromIp(randomIp()));
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => postClaim(instances[i % instances.length]!, body, fromIp(`203.0.113.${i + 1}`))));
    const statuses = responses.map((response) => response.status);
    expect(Object.fromEntries(tally(statuses))).toEqual({ 201: 1, 409: 29 });
    expect(await scalar(sql, 'select count(*) as value from passes where public_key = $1', [body.publicKey])).toBe(1);
  });

  it('gives one wallet claiming with 9 messages at once on different instances one pass', async () => {
    const wallet = new TestWallet();
    const ip = fromIp(randomIp());
    const bodies = await Promise.all(instances.flatMap((instance) => [1, 2, 3].map(() => signedClaim(instance, wallet, ip))));
    const responses = await Promise.all(bodies.map((body, i) => postClaim(instances[(i + 1) % instances.length]!, body, ip)));
    expect(Object.fromEntries(tally(responses.map((r) => r.status)))).toEqual({ 201: 1, 200: 8 });
    const urls = new Set(await Promise.all(responses.map(async (r) => ((await r.json()) as { downloadUrl: string }).downloadUrl)));
    expect(urls.size).toBe(1);
  });

  it('counts one client against one budget whichever instance it reaches', async () => {
    // Not from randomIp(): an address the other tests of this file drew could already have spent some of its budget.
    const ip = fromIp('203.0.113.77');
    const statuses: number[] = [];
    // 1.5 budgets, round-robin: with per-instance counters every request would pass. A wallet per
    // request: one wallet's pending messages are capped on their own (PENDING_MESSAGES_PER_KEY).
    for (let i = 0; i < LIMIT_PER_MINUTE * 1.5; i++) {
      const instance = instances[i % instances.length]!;
      statuses.push((await instance.fetch(`/api/v1/claim/init?publicKey=${new TestWallet().publicKey}`, { headers: ip })).status);
    }
    expect(Object.fromEntries(tally(statuses))).toEqual({ 200: LIMIT_PER_MINUTE, 429: LIMIT_PER_MINUTE / 2 });
    const limited = await instances[1]!.fetch(`/api/v1/claim/init?publicKey=${new TestWallet().publicKey}`, { headers: ip });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await limited.json()).code).toBe('rate_limited');
  });
});
