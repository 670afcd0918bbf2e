// Redis goes away under a running instance (a redis-server of the test's own): claims keep working,
// rate limits fall back to this instance's own counters, and the outage and the recovery are each
// logged once.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, ServerProcess, sleep } from '../../scripts/support/server-process';
import { runsAlone } from '../server/support/alone';
import { fromIp, postClaim, randomIp, signedClaim, TestWallet, tally } from './support/claims';
import { findRedisServer, PrivateRedis } from './support/private-redis';
import { requireService } from './support/requirements';

// It times the service's answers: no other file beside it.
runsAlone();

const SERVER_PORT = 3630;
const REDIS_PORT = 3631;
const LIMIT_PER_MINUTE = 5;

const outages = (server: ServerProcess) => server.logs.filter((line) => line.event === 'redis_unavailable');
const recoveries = (server: ServerProcess) => server.logs.filter((line) => line.event === 'redis_recovered');

requireService('redis-server', findRedisServer().problem, 'The Redis outage tests');

describe('Redis stops under a running instance', () => {
  const redis = new PrivateRedis(REDIS_PORT);
  let server: ServerProcess;

  beforeAll(async () => {
    await redis.start();
    server = await ServerProcess.start(SERVER_PORT, {
      REDIS_URL: redis.url,
      RATE_LIMIT_PER_MINUTE: String(LIMIT_PER_MINUTE),
      TRUST_PROXY: '1',
    });
  });

  afterAll(async () => {
    await server?.stop();
    server?.removeDataDir();
    await redis.stop();
  });

  /** Claims from one new address until the limit answers; returns the statuses. */
  const claimsUntilLimited = async (ip: string) => {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMIT_PER_MINUTE; i++) {
      const wallet = new TestWallet();
      const init = await server.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, { headers: fromIp(ip) });
      statuses.push(init.status);
      if (init.status !== 200) break;
      const { message } = (await init.json()) as { message: string };
      // The claim counts too; send it only when the budget has room, to keep the arithmetic plain.
      if (statuses.length < LIMIT_PER_MINUTE) {
        const claim = await postClaim(server, { message, signature: wallet.sign(message), publicKey: wallet.publicKey }, fromIp(ip));
        statuses.push(claim.status);
      }
    }
    return statuses;
  };

  it('counts in Redis while it runs', async () => {
    const ip = randomIp();
    const statuses = await claimsUntilLimited(ip);
    expect(statuses.slice(0, LIMIT_PER_MINUTE)).toEqual([200, 201, 200, 201, 200]);
    expect(statuses.at(-1)).toBe(429);
    const client = new Redis(redis.url);
    expect(await client.keys(`wallet-pass-claim:claim-path:${ip}`)).toHaveLength(1);
    client.disconnect();
    expect(outages(server)).toHaveLength(0);
  });

  it('keeps claims working when Redis is killed, limited per instance, and logs the outage once', async () => {
    await redis.stop();
    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 10 }, async () => postClaim(server, await signedClaim(server, new TestWallet(), fromIp(randomIp())), fromIp(randomIp()))),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(Date.now() - started).toBeLessThan(5000);

    // Limits still hold, counted by this instance alone.
    const statuses = await claimsUntilLimited(randomIp());
    expect(statuses.at(-1)).toBe(429);
    expect(tally(statuses).get(429)).toBe(1);

    await sleep(3000); // ioredis keeps reconnecting meanwhile; each failed attempt must not log again
    await postClaim(server, await signedClaim(server, new TestWallet(), fromIp(randomIp())), fromIp(randomIp()));
    expect(outages(server)).toHaveLength(1);
    expect(outages(server)[0]).toMatchObject({ level: 40 });
  });

  it('shares the counters again when Redis returns, and logs the recovery once', async () => {
    await redis.start();
    await server.waitForLog((line) => line.event === 'redis_recovered', 10_000);
    const ip = randomIp();
    const statuses = await claimsUntilLimited(ip);
    expect(statuses.at(-1)).toBe(429);
    const client = new Redis(redis.url);
    expect(await client.keys(`wallet-pass-claim:claim-path:${ip}`)).toHaveLength(1);
    client.disconnect();
    expect(recoveries(server)).toHaveLength(1);
    expect(outages(server)).toHaveLength(1);
  });

  it('keeps claims fast when Redis hangs (accepts connections, never answers), and logs that outage once', async () => {
    redis.freeze();
    try {
      const wallet = new TestWallet();
      const ip = fromIp(randomIp());
      const started = Date.now();
      const body = await signedClaim(server, wallet, ip);
      const claim = await postClaim(server, body, ip);
      expect(claim.status).toBe(201);
      expect(Date.now() - started).toBeLessThan(3000);

      // Later requests do not each wait for Redis to time out.
      const timings: number[] = [];
      for (let i = 0; i < 5; i++) {
        const t0 = Date.now();
        const init = await server.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, { headers: fromIp(randomIp()) });
        expect(init.status).toBe(200);
        timings.push(Date.now() - t0);
      }
      expect(Math.max(...timings)).toBeLessThan(400);
      expect(outages(server)).toHaveLength(2);
    } finally {
      redis.thaw();
    }
    // A hung connection that resumes never reconnects: the next request that tries Redis again
    // (one per retry interval) finds it back.
    const wallet = new TestWallet();
    await eventually(
      async () => {
        await server.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, { headers: fromIp(randomIp()) });
        return recoveries(server).length === 2 || undefined;
      },
      15_000,
      'the recovery from a hung Redis is logged',
    );
  });
});
