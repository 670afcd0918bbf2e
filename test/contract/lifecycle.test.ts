// Time, restarts, limits and failures: expiry, survival across a restart, purging, per-IP rate
// limits (and whom X-Forwarded-For may name), an unavailable database, and a bug's 500.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Jobs } from '@/lib/db/jobs';
import { purgeMessagesExpiredBefore } from '@/lib/db/messages';
import type { Queryable } from '@/lib/db/sql';
import { BACKENDS, TestApp, TestWallet } from '../support/app';

/** A node of EXPLAIN (ANALYZE, FORMAT JSON)'s plan. */
type PlanNode = { 'Node Type': string; 'Actual Rows'?: number; 'Actual Loops'?: number; 'Rows Removed by Filter'?: number; Plans?: PlanNode[] };

/** The table and index rows a plan's scans read: those they returned and those their filters dropped. */
function rowsRead(node: PlanNode): number {
  const scan = /Scan$/.test(node['Node Type']) && !['Subquery Scan', 'CTE Scan', 'Function Scan'].includes(node['Node Type']);
  const own = scan ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) + (node['Rows Removed by Filter'] ?? 0) : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

describe.each(BACKENDS)('lifecycle on %s', (backend) => {
  // One database for the file, each test with its own wallets and settings: open() reopens the
  // services with the test's settings, so limits counted in memory start afresh. A test that
  // counts every row of a table opens a database of its own.
  let shared: TestApp;
  let app: TestApp | undefined;
  beforeAll(async () => {
    shared = await TestApp.open(backend);
  });
  afterAll(() => shared.close());
  afterEach(async () => {
    if (app !== shared) await app?.close().catch(() => {});
    app = undefined;
  });
  const open = async (env: Record<string, string> = {}) => {
    await shared.reopen(env);
    return shared;
  };

  it('claims a message issued before a restart after it', async () => {
    app = await open();
    const wallet = new TestWallet();
    const { message } = await app.init(wallet.publicKey);
    await app.restart();
    const response = await app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey });
    expect(response.status).toBe(201);
    const { downloadUrl } = await response.json();
    await app.restart();
    expect((await app.fetch(new URL(downloadUrl).pathname + new URL(downloadUrl).search)).status).toBe(200);
  });

  it('answers 401 message_expired after NONCE_TTL_SECONDS, without using the message up', async () => {
    app = await open({ NONCE_TTL_SECONDS: '2' });
    const wallet = new TestWallet();
    const fresh = await app.init(wallet.publicKey);
    const stale = await app.init(wallet.publicKey);
    expect((await app.postClaim({ message: fresh.message, signature: wallet.sign(fresh.message), publicKey: wallet.publicKey })).status).toBe(201);
    app.clock.advance(Date.parse(stale.expirationTime) - app.clock.now() + 100);
    const late = await app.postClaim({ message: stale.message, signature: wallet.sign(stale.message), publicKey: wallet.publicKey });
    expect(late.status).toBe(401);
    expect((await late.json()).code).toBe('message_expired');
  });

  it('purges expired messages, so an init flood cannot grow the database without bound', async () => {
    app = await TestApp.open(backend, { NONCE_TTL_SECONDS: '1' }); // counts every message
    // 100 wallets (one wallet holds at most PENDING_MESSAGES_PER_KEY pending messages).
    for (let i = 0; i < 100; i++) await app.init(new TestWallet().publicKey);
    // Reads the table directly: the store has no counting query of its own.
    const messages = async () => {
      const [row] = await app!.services.store.sql.query<{ n: number }>('select count(*)::int as n from sign_in_messages');
      return row!.n;
    };
    expect(await messages()).toBe(100);
    const deleted = await app.services.store.purgeMessagesExpiredBefore(new Date(Date.now() + 5000));
    expect(deleted).toBe(100);
    expect(await messages()).toBe(0);
    // The per-key bookkeeping of those messages goes too.
    const [pending] = await app.services.store.sql.query<{ n: number }>('select count(*)::int as n from wallet_pending');
    expect(pending!.n).toBe(0);
  });

  it('purges without reading the messages that have not expired, however many there are', async () => {
    app = await TestApp.open(backend); // counts rows of its own
    const db = app.services.store.sql;
    // 5,000 pending messages, written straight to the tables (as many inits would take minutes).
    const later = new Date(Date.now() + 10 * 60_000).toISOString();
    await db.query(
      `insert into sign_in_messages (nonce_hash, public_key, message, issued_at, expires_at)
       select md5(g::text || 'nonce'), md5(g::text), repeat('x', 400), now(), $1::timestamptz from generate_series(1, 5000) g`,
      [later],
    );
    await db.query(
      `insert into wallet_pending (public_key, pending, last_expires_at)
       select md5(g::text), jsonb_build_object(md5(g::text || 'nonce'), 1), $1::timestamptz from generate_series(1, 5000) g`,
      [later],
    );
    // The purge's own statements, run again under EXPLAIN ANALYZE: the rows each one read.
    const statements: { text: string; params?: unknown[] }[] = [];
    const recorded: Queryable = {
      query: (text, params) => {
        statements.push({ text, params });
        return db.query(text, params);
      },
    };
    expect(await purgeMessagesExpiredBefore(recorded, new Date(), 500)).toBe(0);
    expect(statements).toHaveLength(2); // messages, then their per-key bookkeeping
    for (const { text, params } of statements) {
      const [row] = await db.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${text}`, params);
      const plan = row!['QUERY PLAN'];
      const [{ Plan }] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ Plan: PlanNode }];
      // A sequential scan of either table here would read all 5,000 rows, every minute.
      expect(rowsRead(Plan)).toBeLessThan(10);
    }
  });

  it('purges old jobs without reading the jobs it keeps, however many there are', async () => {
    app = await TestApp.open(backend); // counts rows of its own
    const db = app.services.store.sql;
    // 5,000 jobs done a minute ago, 5,000 failed a minute ago (both kept), and 3 done long ago.
    await db.query(
      `insert into jobs (kind, payload, run_at, done_at, failed_at)
       select 'webhook', '{}'::jsonb, now(), case when g % 2 = 0 then now() - interval '1 minute' end,
              case when g % 2 = 1 then now() - interval '1 minute' end
       from generate_series(1, 10000) g`,
    );
    await db.query(
      `insert into jobs (kind, payload, run_at, done_at) select 'webhook', '{}'::jsonb, now(), now() - interval '30 days' from generate_series(1, 3)`,
    );
    await db.query('analyze jobs');
    const statements: { text: string; params?: unknown[] }[] = [];
    const recorded: Queryable = {
      query: (text, params) => {
        statements.push({ text, params });
        return db.query(text, params);
      },
    };
    const day = 24 * 60 * 60 * 1000;
    const plans = async () => {
      const [{ text, params }] = statements.slice(-1) as [{ text: string; params?: unknown[] }];
      const [row] = await db.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${text}`, params);
      const plan = row!['QUERY PLAN'];
      return (typeof plan === 'string' ? JSON.parse(plan) : plan) as [{ Plan: PlanNode }];
    };
    await new Jobs(recorded).purge(day, 7 * day);
    expect(Number((await db.query<{ n: string }>('select count(*) as n from jobs'))[0]!.n)).toBe(10000);
    // Run again under EXPLAIN ANALYZE (nothing left to delete): a sequential scan would read all 10,000.
    const [{ Plan }] = await plans();
    expect(rowsRead(Plan)).toBeLessThan(10);
  });

  it('lets other work run between the batches of a purge', async () => {
    app = await open({ NONCE_TTL_SECONDS: '1' });
    const expiredBy = new Date(Date.now() + 5000);
    for (let i = 0; i < 10; i++) await app.init(new TestWallet().publicKey);
    // Turns of the event loop (where a server reads new requests) taken while the purge runs.
    let purging = true;
    let turns = 0;
    const turn = () => {
      if (!purging) return;
      turns++;
      setImmediate(turn);
    };
    setImmediate(turn);
    // Batches of 2: 10 messages in 5 full batches (and an empty one), then 10 keys' bookkeeping as many.
    const deleted = await purgeMessagesExpiredBefore(app.services.store.sql, expiredBy, 2);
    purging = false;
    expect(deleted).toBeGreaterThanOrEqual(10); // the shared database may hold other tests' expired messages
    expect(turns).toBeGreaterThanOrEqual(9);
  });

  describe('rate limits', () => {
    const problem = async (response: Response) => {
      expect(response.status).toBe(429);
      const retryAfter = Number(response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect((await response.json()).code).toBe('rate_limited');
    };

    it('limits init and claim together per client IP, with Retry-After', async () => {
      app = await open({ RATE_LIMIT_PER_MINUTE: '3' });
      const wallet = new TestWallet();
      const { message } = await app.init(wallet.publicKey, '198.51.100.1');
      await app.init(wallet.publicKey, '198.51.100.1');
      const claim = () => app!.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey }, { ip: '198.51.100.1' });
      expect((await claim()).status).toBe(201);
      await problem(await claim());
      await problem(await app.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, { ip: '198.51.100.1' }));
      // Another client is unaffected, and so are health and downloads.
      expect((await app.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, { ip: '198.51.100.2' })).status).toBe(200);
      expect((await app.fetch('/health', { ip: '198.51.100.1' })).status).toBe(200);
    });

    it('ignores X-Forwarded-For unless TRUST_PROXY is set', async () => {
      app = await open({ RATE_LIMIT_PER_MINUTE: '1' });
      const wallet = new TestWallet();
      const init = (forwardedFor: string) =>
        app!.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, { ip: '10.0.0.1', headers: { 'x-forwarded-for': forwardedFor } });
      expect((await init('203.0.113.1')).status).toBe(200);
      await problem(await init('203.0.113.2'));
    });

    it('with TRUST_PROXY, limits the address the proxy saw, not what the client wrote', async () => {
      app = await open({ RATE_LIMIT_PER_MINUTE: '1', TRUST_PROXY: 'true' });
      const wallet = new TestWallet();
      const init = (forwardedFor: string) =>
        app!.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, { ip: '10.0.0.1', headers: { 'x-forwarded-for': forwardedFor } });
      expect((await init('203.0.113.1')).status).toBe(200);
      expect((await init('203.0.113.2')).status).toBe(200);
      // A client prepending a forged address is still counted as the address the proxy appended.
      await problem(await init('192.0.2.99, 203.0.113.1'));
    });

    it('turns off with RATE_LIMIT_PER_MINUTE=0, and so does the per-instance init budget', async () => {
      app = await open({ RATE_LIMIT_PER_MINUTE: '0', INIT_BUDGET_PER_SECOND: '5' });
      // One client, 80 wallets (one wallet's pending messages stay capped: docs/limits.md).
      await Promise.all(Array.from({ length: 80 }, () => app!.init(new TestWallet().publicKey)));
    });
  });

  it('answers 503 when the database does not answer, and writes nothing', async () => {
    app = await open();
    const wallet = new TestWallet();
    const { message } = await app.init(wallet.publicKey);
    await app.services.store.close();
    const health = await app.fetch('/health');
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'unhealthy' });
    for (const response of [
      await app.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`),
      await app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey }),
    ]) {
      expect(response.status).toBe(503);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect((await response.json()).code).toBe('service_unavailable');
    }
    // Reopened, the message was not used by the failed claim.
    await app.restart();
    expect((await app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey })).status).toBe(201);
  });

  it('answers a bug with 500 internal_error carrying a request id, and no internals', async () => {
    app = await open();
    const { downloadUrl } = await (await app.claimWith(new TestWallet())).json();
    // A signer that fails as a bug would (it is set up once at start, so break it directly).
    app.services.issuer.signer = {
      sign: async () => {
        throw new Error('pkcs7 signer exploded at /srv/lib/x.js:1');
      },
    };
    const response = await app.fetch(new URL(downloadUrl).pathname + new URL(downloadUrl).search, { requestId: 'req-1234' });
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toMatchObject({ status: 500, code: 'internal_error', requestId: 'req-1234' });
    expect(body.detail).toContain('req-1234');
    expect(JSON.stringify(body)).not.toMatch(/forge|pem|\.ts:|\.js:|stack/i);
  });
});
