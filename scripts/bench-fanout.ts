// The update fan-out benchmark (`npm run bench:fanout`, after `npm run build`): one program of
// 10,000 passes and 100,000 registered devices (seeded straight into the database), the APNs
// stand-in over TLS in this process (announcing 1,000 streams per connection, as APNs does), and
// the production server as a separate process. A message to the program is sent and every device
// pushed; twice: the stand-in answering at once, then after 20 ms. Printed for each run: pushes/s
// and the time until the last device, the stand-in's peak concurrent streams, the server's RSS
// before (after 5,000 claims, at its working size) and at its highest during the update, and claims' p99 on the same server while the update
// runs (50 connections, the default program). The ceiling: a bare node:http2 client (its own
// process, one connection, 500 streams in flight) against the same stand-in answering at once;
// the service's rate is reported as a fraction of it. Embedded PGlite, or with `--postgres` (or
// DATABASE_URL set) a scratch database on that PostgreSQL server. `--devices N` / `--passes N`
// change the set-up; `--delays 0,20` the runs; `--claims 0` runs the update alone (no claims);
// `--heap-mb N` starts the server with `--max-old-space-size=N` (docs/operations.md: on a big
// machine V8's default limit is gigabytes, and it collects that much later). It reports figures and checks no goal.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { openDatabase } from '../lib/db/client';
import { ensureDevelopmentChain } from '../lib/passes/certificates';
import { ApnsStandIn } from '../test/support/stand-ins/apns';
import { createCertificateAuthority, issuePassTypeCertificate } from '../test/support/stand-ins/certificates';
import { Wallets } from './support/bench-wallets';
import { createScratchDatabase } from './support/scratch-database';
import { insertPasses, insertRegistrations } from './support/seed-passes';
import { ServerProcess, sleep } from './support/server-process';

function argValue(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

const PORT = Number(argValue('--port') ?? 3695);
const PASSES = Number(argValue('--passes') ?? 10_000);
const DEVICES = Number(argValue('--devices') ?? 100_000);
const DELAYS = (argValue('--delays') ?? '0,20').split(',').map(Number);
const POSTGRES_URL = process.argv.includes('--postgres') ? (process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL) : process.env.DATABASE_URL;
const CONNECTIONS = 50;
/** The server's V8 old-space limit in MiB (`--heap-mb`), or V8's default. */
const HEAP_MB = argValue('--heap-mb');
/** Claims signed before each run: more than the update lasts at the claim rate seen here. */
const CLAIMS = Number(argValue('--claims') ?? 20_000);
const PROGRAM = 'crowd';
/** Claims before the "before" RSS sample: the heap grows to its working size over the first few thousand. */
const WARM_UP_CLAIMS = 5_000;
const BARE_PUSHES = 100_000;
const BARE_IN_FLIGHT = 500;

type Run = {
  delayMs: number;
  devices: number;
  seconds: number;
  pushesPerSecond: number;
  peakStreams: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  claims: number;
  claimP50: number;
  claimP99: number;
  claimErrors: number;
  duplicates: number;
};

const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

async function seed(dataDir: string, databaseUrl: string | undefined): Promise<void> {
  const db = await openDatabase({ dataDir, databaseUrl, poolSize: 4, timeoutMs: 120_000 });
  try {
    await db.query(`insert into programs (slug, name, status) values ($1, 'Crowd', 'live')`, [PROGRAM]);
    const wallets = new Wallets();
    wallets.grow(PASSES);
    const serials = await insertPasses(db, wallets.publicKeys.slice(0, PASSES), PROGRAM);
    await insertRegistrations(db, serials, Math.ceil(DEVICES / PASSES));
  } finally {
    await db.close();
  }
}

async function operatorToken(server: ServerProcess, wallets: Wallets, wallet: string): Promise<string> {
  const init = (await (await server.fetch(`/api/v1/operator/sessions/init?publicKey=${wallet}`)).json()) as { message: string };
  const session = await server.fetch('/api/v1/operator/sessions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: init.message, signature: wallets.sign(wallet, init.message), publicKey: wallet }),
  });
  return ((await session.json()) as { token: string }).token;
}

/** Pre-signed claims of the default program: inits issued untimed, each message signed. */
async function signedClaims(server: ServerProcess, wallets: Wallets, count: number): Promise<string[]> {
  wallets.grow(count);
  const keys = wallets.publicKeys.slice(-count);
  const bodies: string[] = [];
  let next = 0;
  await new Promise<void>((resolve, reject) =>
    autocannon(
      {
        url: server.baseUrl,
        connections: CONNECTIONS,
        amount: count,
        requests: [
          {
            setupRequest: (request) => ({ ...request, method: 'GET', path: `/api/v1/claim/init?publicKey=${keys[next++ % keys.length]}` }),
            onResponse: (status, body) => {
              if (status !== 200) return;
              const { address, message } = JSON.parse(body) as { address: string; message: string };
              bodies.push(JSON.stringify({ message, signature: wallets.sign(address, message), publicKey: address }));
            },
          },
        ],
      },
      (error) => (error ? reject(error) : resolve()),
    ),
  );
  return bodies;
}

async function claimAll(server: ServerProcess, bodies: string[]): Promise<void> {
  let next = 0;
  await new Promise<void>((resolve, reject) =>
    autocannon(
      {
        url: server.baseUrl,
        connections: CONNECTIONS,
        amount: bodies.length,
        headers: { 'content-type': 'application/json' },
        requests: [{ setupRequest: (request) => ({ ...request, method: 'POST', path: '/api/v1/claim/wallet-pass', body: bodies[next++] }) }],
      },
      (error) => (error ? reject(error) : resolve()),
    ),
  );
}

async function runOnce(name: string, env: Record<string, string>, dataDir: string, delayMs: number, wallets: Wallets, operator: string): Promise<Run> {
  const signing = ensureDevelopmentChain(dataDir);
  const apns = await ApnsStandIn.start({
    clientCa: signing.wwdrCertPem,
    topic: signing.passTypeIdentifier,
    answerDelayMs: delayMs,
    maxConcurrentStreams: 1000,
    record: false,
  });
  const server = await ServerProcess.start(
    PORT,
    { ...env, APNS_URL: apns.url, NODE_EXTRA_CA_CERTS: apns.caFile },
    HEAP_MB ? { nodeArgs: [`--max-old-space-size=${Number(HEAP_MB)}`] } : {},
  );
  try {
    const token = await operatorToken(server, wallets, operator);
    const signed = CLAIMS > 0 ? await signedClaims(server, wallets, CLAIMS + WARM_UP_CLAIMS) : [];
    // Claims first, untimed, so that "before" is the server at its working size (scripts/bench.ts does the same).
    if (signed.length > 0) await claimAll(server, signed.slice(0, WARM_UP_CLAIMS));
    const bodies = signed.slice(WARM_UP_CLAIMS);
    await sleep(1000);
    const rssBefore = server.rssBytes();
    let rssPeak = rssBefore;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, server.rssBytes());
    }, 200);

    const started = performance.now();
    const sent = await server.fetch(`/api/v1/operator/programs/${PROGRAM}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ text: `Benchmark message, ${delayMs} ms stand-in.` }),
    });
    if (sent.status !== 202) throw new Error(`message: ${sent.status} ${await sent.text()}`);
    const { devices } = (await sent.json()) as { devices: number };

    // Claims on the same server while the update runs, until its last device is pushed.
    let claimed = 0;
    let done = false;
    const noClaims = { requests: { total: 0 }, latency: { p50: 0, p99: 0 }, errors: 0, non2xx: 0 } as unknown as autocannon.Result;
    const claims = new Promise<autocannon.Result>((resolve, reject) => {
      if (bodies.length === 0) return resolve(noClaims);
      const instance = autocannon(
        {
          url: server.baseUrl,
          connections: CONNECTIONS,
          amount: bodies.length,
          headers: { 'content-type': 'application/json' },
          requests: [{ setupRequest: (request) => ({ ...request, method: 'POST', path: '/api/v1/claim/wallet-pass', body: bodies[claimed++] }) }],
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
      const stop = setInterval(() => {
        if (done || claimed >= bodies.length - CONNECTIONS) {
          clearInterval(stop);
          instance.stop();
        }
      }, 50);
    });
    while (apns.deliveries.size < devices) {
      if (performance.now() - started > 600_000) throw new Error(`${name}: ${apns.deliveries.size} of ${devices} devices after 10 minutes`);
      await sleep(20);
    }
    const seconds = (performance.now() - started) / 1000;
    done = true;
    clearInterval(sampler);
    const claimResult = await claims;
    if (bodies.length > 0 && claimed >= bodies.length - CONNECTIONS) console.warn(`${name}: the claims ran out before the update ended: raise --claims`);
    return {
      delayMs,
      devices,
      seconds,
      pushesPerSecond: devices / seconds,
      peakStreams: apns.peakStreams,
      rssBeforeMb: mb(rssBefore),
      rssPeakMb: mb(rssPeak),
      claims: claimResult.requests.total,
      claimP50: claimResult.latency.p50,
      claimP99: claimResult.latency.p99,
      claimErrors: claimResult.errors + claimResult.non2xx,
      duplicates: [...apns.deliveries.values()].filter((n) => n > 1).length,
    };
  } finally {
    await server.stop();
    await apns.close();
  }
}

/** The bare node:http2 client in its own process against a stand-in answering at once. */
async function ceiling(): Promise<{ rate: number; pushes: number }> {
  const ca = createCertificateAuthority('Bench WWDR CA');
  const topic = 'pass.example.bench';
  const client = issuePassTypeCertificate(ca, topic);
  const apns = await ApnsStandIn.start({ clientCa: ca.certPem, topic, maxConcurrentStreams: 1000, record: false });
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join('scripts', 'support', 'bare-http2-push.ts')], {
      env: {
        ...process.env,
        BARE_URL: apns.url,
        BARE_CERT: client.certPem,
        BARE_KEY: client.keyPem,
        BARE_CA: apns.caPem,
        BARE_TOPIC: topic,
        BARE_COUNT: String(BARE_PUSHES),
        BARE_IN_FLIGHT: String(BARE_IN_FLIGHT),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`bare client exited with ${code}`);
    return JSON.parse(out) as { rate: number; pushes: number };
  } finally {
    await apns.close();
  }
}

async function benchDatabase(name: string, databaseUrl: string | undefined): Promise<Run[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-bench-fanout-'));
  const database = databaseUrl ? await createScratchDatabase(databaseUrl) : undefined;
  try {
    const seeding = performance.now();
    await seed(dataDir, database?.url);
    console.log(`${name}: seeded ${PASSES} passes and ${DEVICES} devices in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
    const wallets = new Wallets();
    const operator = wallets.fresh();
    const env = {
      DATA_DIR: dataDir,
      ...(database ? { DATABASE_URL: database.url } : {}),
      RATE_LIMIT_PER_MINUTE: '0',
      OPERATOR_WALLETS: operator,
      LOG_LEVEL: 'warn',
    };
    const runs: Run[] = [];
    for (const delayMs of DELAYS) {
      const run = await runOnce(name, env, dataDir, delayMs, wallets, operator);
      console.log(`${name}, stand-in ${delayMs} ms: ${JSON.stringify(run)}`);
      runs.push(run);
    }
    return runs;
  } finally {
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const bare = await ceiling();
  console.log(`bare node:http2 client: ${Math.round(bare.rate)} pushes/s (1 connection, ${BARE_IN_FLIGHT} streams in flight, ${bare.pushes} pushes)`);
  const results: [string, Run[]][] = [];
  results.push(['embedded (PGlite)', await benchDatabase('embedded (PGlite)', undefined)]);
  if (POSTGRES_URL) results.push(['PostgreSQL', await benchDatabase('PostgreSQL', POSTGRES_URL)]);
  console.log('');
  console.log(
    `| database | stand-in | devices | time to last device | pushes/s | of ceiling | peak streams | RSS before → peak | claims | claim p50 / p99 | duplicates |`,
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [name, runs] of results) {
    for (const run of runs) {
      console.log(
        `| ${name} | ${run.delayMs} ms | ${run.devices} | ${run.seconds.toFixed(1)} s | ${Math.round(run.pushesPerSecond)} | ${((run.pushesPerSecond / bare.rate) * 100).toFixed(0)} % | ${run.peakStreams} | ${run.rssBeforeMb} → ${run.rssPeakMb} MB (+${run.rssPeakMb - run.rssBeforeMb}) | ${run.claims} (${run.claimErrors} errors) | ${run.claimP50} / ${run.claimP99} ms | ${run.duplicates} |`,
      );
    }
  }
  console.log(
    `ceiling: bare node:http2 client ${Math.round(bare.rate)} pushes/s; server heap limit: ${HEAP_MB ? `--max-old-space-size=${HEAP_MB}` : "V8's default"}`,
  );
}

main().catch((error: unknown) => {
  console.error('bench:fanout failed:', error);
  process.exit(1);
});
