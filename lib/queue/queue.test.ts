// The durable job queue on a real database (PGlite, and PostgreSQL when TEST_DATABASE_URL is set):
// jobs run once, a change's jobs are enqueued only with the change, failures are retried with
// backoff, a permanent failure stops, jobs survive a restart, a lease that ran out hands the job to
// another worker, and on PostgreSQL two instances sharing the database run each job once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jobsParameter, statementWithJobs } from '@/lib/db/jobs';
import { eventually, sleep } from '@/scripts/support/server-process';
import { BACKENDS, TestApp } from '@/test/support/app';
import { PermanentJobFailure, type TaskList } from './index';
import { DEFAULT_WORKER_OPTIONS, JobLanes, JobWorker, MAX_RETRY_DELAY_MS, retryDelayMs } from './worker';

type JobRow = { id: string; attempts: number; done_at: Date | null; failed_at: Date | null; last_error: string | null; run_at: Date; created_at: Date };

const jobRow = async (app: TestApp, id: number) => (await app.services.store.sql.query<JobRow>(`select * from jobs where id = $1`, [id]))[0]!;

/** Each test uses kinds of its own, which the service's own worker does not claim. */
let kindCounter = 0;
const newKind = () => `test.job.${process.pid}.${kindCounter++}`;

/** The workers a test started on its app's jobs table, each with the test's handlers; stopped after the test. */
const workers: JobWorker[] = [];
function startWorker(app: TestApp, handlers: TaskList): JobWorker {
  const worker = new JobWorker({ handlers, jobs: app.services.store.jobs, log: app.services.log, options: { ...DEFAULT_WORKER_OPTIONS, retryBaseMs: 50 } });
  worker.start();
  workers.push(worker);
  return worker;
}
/** A worker whose one handler records each payload of `kind` it runs. */
function recordingWorker(app: TestApp, kind: string): unknown[] {
  const seen: unknown[] = [];
  startWorker(app, {
    [kind]: async (payload) => {
      seen.push(payload);
    },
  });
  return seen;
}
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
});

describe('retry delays', () => {
  it('double from the base, are capped at an hour, and keep retrying past 24 hours', () => {
    expect(retryDelayMs(1, 10_000)).toBeGreaterThanOrEqual(9000);
    expect(retryDelayMs(1, 10_000)).toBeLessThanOrEqual(11_000);
    expect(retryDelayMs(4, 10_000)).toBeGreaterThanOrEqual(72_000);
    expect(retryDelayMs(4, 10_000)).toBeLessThanOrEqual(88_000);
    expect(retryDelayMs(40, 10_000)).toBeLessThanOrEqual(MAX_RETRY_DELAY_MS * 1.1);
    // The attempts the default schedule makes within a day: enough that 24 hours pass before it gives up.
    let elapsed = 0;
    let attempts = 0;
    while (elapsed < 24 * 3600_000) elapsed += retryDelayMs(++attempts, 10_000);
    expect(attempts).toBeGreaterThan(20);
  });
});

describe.each(BACKENDS)('job queue on %s', (backend) => {
  // One database for the file (opening one is slow); each test has job kinds of its own.
  let shared: TestApp;
  beforeAll(async () => {
    shared = await TestApp.open(backend, { JOB_RETRY_BASE_MS: '50' });
  });
  afterAll(() => shared.close());
  const open = async () => shared;

  it('runs an enqueued job promptly, once, with its payload', async () => {
    const app = await open();
    const kind = newKind();
    const seen = recordingWorker(app, kind);
    const started = Date.now();
    const [id] = await app.services.store.jobs.enqueue({ kind, payload: { hello: 'world', n: 1 } });
    await eventually(async () => ((await jobRow(app, id!)).done_at ? true : undefined), 5000, 'job done');
    expect(Date.now() - started).toBeLessThan(900); // woken at once, not at the next poll
    expect(seen).toEqual([{ hello: 'world', n: 1 }]);
    expect((await jobRow(app, id!)).attempts).toBe(1);
  });

  it('runs a job of one lane at once while every slot of another lane is busy and hundreds more wait', async () => {
    const app = await open();
    const [slow, fast] = [newKind(), newKind()];
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const lanes = new JobLanes({
      lanes: [
        { handlers: { [fast]: async () => {} }, concurrency: 2 },
        { handlers: { [slow]: () => released }, concurrency: 2 },
      ],
      jobs: app.services.store.jobs,
      log: app.services.log,
      options: { ...DEFAULT_WORKER_OPTIONS, retryBaseMs: 50 },
    });
    lanes.start();
    try {
      await app.services.store.jobs.enqueue(Array.from({ length: 300 }, (_, n) => ({ kind: slow, payload: { n } })));
      await sleep(100);
      const started = Date.now();
      const [id] = await app.services.store.jobs.enqueue({ kind: fast, payload: {} });
      await eventually(async () => ((await jobRow(app, id!)).done_at ? true : undefined), 5000, 'fast job done');
      expect(Date.now() - started).toBeLessThan(500);
    } finally {
      release();
      await lanes.stop();
    }
  });

  it('enqueues a job with a dedupe key once, whoever enqueues it at the same moment', async () => {
    const app = await open();
    const kind = newKind();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        app.services.store.jobs.enqueue([
          { kind, payload: { n }, dedupeKey: 'one' },
          { kind, payload: { n }, dedupeKey: 'one' },
        ]),
      ),
    );
    expect(results.flat()).toHaveLength(1);
    expect(await app.services.store.jobs.enqueue({ kind, payload: {}, dedupeKey: 'two' })).toHaveLength(1);
    expect(await app.services.store.jobs.enqueue({ kind: newKind(), payload: {}, dedupeKey: 'one' })).toHaveLength(1); // keys are per kind
    const [{ count }] = (await app.services.store.sql.query<{ count: number }>(`select count(*)::int as count from jobs where kind = $1`, [kind])) as [
      { count: number },
    ];
    expect(count).toBe(2);
  });

  it('retries a failing job with backoff until it succeeds, keeping the last error meanwhile', async () => {
    const app = await open();
    const kind = newKind();
    const times: number[] = [];
    startWorker(app, {
      [kind]: async () => {
        times.push(Date.now());
        if (times.length < 3) throw new Error(`receiver down ${times.length}`);
      },
    });
    const [id] = await app.services.store.jobs.enqueue({ kind, payload: {} });
    await eventually(async () => (times.length >= 2 ? true : undefined), 5000, 'second attempt');
    const row = await eventually(
      async () => {
        const r = await jobRow(app, id!);
        return r.done_at ? r : undefined;
      },
      5000,
      'job done',
    );
    expect(row.attempts).toBe(3);
    expect(row.last_error).toBeNull();
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(40); // ~50 ms, then ~100 ms
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(80);
  });

  it('gives up at once on PermanentJobFailure, and after the retry window otherwise', async () => {
    const app = await open();
    const kind = newKind();
    startWorker(app, {
      [kind]: async (payload: { permanent: boolean }) => {
        throw payload.permanent ? new PermanentJobFailure('no such thing') : new Error('still down');
      },
    });
    const [permanent] = await app.services.store.jobs.enqueue({ kind, payload: { permanent: true } });
    const failed = await eventually(
      async () => {
        const r = await jobRow(app, permanent!);
        return r.failed_at ? r : undefined;
      },
      5000,
      'permanent failure recorded',
    );
    expect(failed).toMatchObject({ attempts: 1, last_error: 'no such thing' });

    // A job enqueued more than 24 hours ago that fails again is given up.
    const [old] = await app.services.store.jobs.enqueue({ kind, payload: { permanent: false } });
    await app.services.store.sql.query(`update jobs set created_at = now() - interval '25 hours' where id = $1`, [old]);
    const gaveUp = await eventually(
      async () => {
        const r = await jobRow(app, old!);
        return r.failed_at ? r : undefined;
      },
      5000,
      'old job given up',
    );
    expect(gaveUp.last_error).toBe('still down');
  });

  it('keeps a job across a restart and runs it after, when it is due', async () => {
    const app = await open();
    const kind = newKind();
    let ran = 0;
    const [id] = await app.services.store.jobs.enqueue({ kind, payload: {}, runAt: new Date(Date.now() + 1500) });
    await app.restart();
    startWorker(app, {
      [kind]: async () => {
        ran++;
      },
    });
    await eventually(async () => ((await jobRow(app, id!)).done_at ? true : undefined), 8000, 'job done after restart');
    expect(ran).toBe(1);
  });

  it("enqueues a change's jobs with it, for the rows it changed only, and wakes the worker", async () => {
    const app = await open();
    const kind = newKind();
    const seen = recordingWorker(app, kind);
    // A stand-in change: the keys of $1 that $2 lets through are "changed".
    const statement = statementWithJobs({
      with: `changed as (select k as key from unnest($1::text[]) as k where k = any($2::text[]))`,
      jobsParam: '$3',
      select: `select count(*)::int as changed from changed`,
    });
    const jobs = jobsParameter(['a', 'b', 'c'].map((key) => ({ key, kind, payload: { key } })));
    const started = Date.now();
    const [row] = await app.services.store.jobs.change<{ changed: number }>(statement, [['a', 'b', 'c'], ['b'], jobs]);
    expect(row).toEqual({ changed: 1 }); // `queued` is the helper's, not the caller's
    await eventually(async () => (seen.length === 1 ? true : undefined), 5000, 'job run');
    expect(Date.now() - started).toBeLessThan(900); // woken at once, not at the next poll
    expect(seen).toEqual([{ key: 'b' }]);
    // Nothing changed: nothing enqueued.
    await app.services.store.jobs.change(statement, [['a'], [], jobs]);
    const [{ count }] = (await app.services.store.sql.query<{ count: number }>(`select count(*)::int as count from jobs where kind = $1`, [kind])) as [
      { count: number },
    ];
    expect(count).toBe(1);
  });

  it('hands a job whose lease ran out (its instance died) to the next claim', async () => {
    const app = await open();
    const kind = newKind();
    let ran = 0;
    // As a killed instance leaves it: claimed, attempt counted, lease in the past.
    const [id] = await app.services.store.jobs.enqueue({ kind, payload: {}, runAt: new Date(Date.now() + 60_000) });
    await app.services.store.sql.query(
      `update jobs set run_at = now(), attempts = 1, locked_by = 'dead', locked_until = now() + interval '700 milliseconds' where id = $1`,
      [id],
    );
    startWorker(app, {
      [kind]: async () => {
        ran++;
      },
    });
    await sleep(300);
    expect(ran).toBe(0); // still leased
    await eventually(async () => ((await jobRow(app, id!)).done_at ? true : undefined), 5000, 'job taken over');
    expect(ran).toBe(1);
    expect((await jobRow(app, id!)).attempts).toBe(2);
  });
});

describe.each(BACKENDS.filter((backend) => backend === 'postgres'))('job queue with two instances on %s', (backend) => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await TestApp.open(backend, { JOB_RETRY_BASE_MS: '50' });
    second = await TestApp.open(backend, first.env);
  });
  afterAll(async () => {
    await second.close(); // its own (unused) scratch database and directory
    await first.close();
  });

  it('runs each job once', async () => {
    const kind = newKind();
    const runs = new Map<number, number>();
    const byInstance = new Map<string, number>();
    const handlers = (instance: string): TaskList => ({
      [kind]: async (payload: { n: number }) => {
        runs.set(payload.n, (runs.get(payload.n) ?? 0) + 1);
        byInstance.set(instance, (byInstance.get(instance) ?? 0) + 1);
        await sleep(5);
      },
    });
    startWorker(first, handlers('first'));
    const secondWorker = startWorker(second, handlers('second'));
    const ids = await first.services.store.jobs.enqueue(Array.from({ length: 200 }, (_, n) => ({ kind, payload: { n } })));
    secondWorker.poke();
    await eventually(
      async () => {
        const [{ left }] = (await first.services.store.sql.query<{ left: number }>(
          `select count(*)::int as left from jobs where id = any($1::bigint[]) and done_at is null`,
          [ids],
        )) as [{ left: number }];
        return left === 0 ? true : undefined;
      },
      20_000,
      'all jobs done',
    );
    expect(runs.size).toBe(200);
    expect([...runs.values()].every((count) => count === 1)).toBe(true);
    expect(byInstance.get('first')).toBeGreaterThan(0); // both took part
    expect(byInstance.get('second')).toBeGreaterThan(0);
  });
});
