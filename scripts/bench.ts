// The load benchmark (`npm run bench`, after `npm run build`): starts the production build as a
// separate process, on the embedded database and, when DATABASE_URL is set, on a fresh database
// of that PostgreSQL server; drives /health, init, claim and download with autocannon (50
// connections, 10 s each) from this process; prints one table. `--short` runs a couple of seconds
// per endpoint (CI runs it so that it cannot rot); `--seconds N` and `--claims N` shorten it further
// (its test only shows that it runs to the end). It reports figures and checks no timing.
// `--gated` instead compares claims under a token CLAIM_POLICY (a local RPC answering in
// `--rpc-delay-ms`, default 20) with claims under none, and counts RPC calls per claim.
// `--programs` compares, in one server, claims and first downloads of a program with its own
// design, five images and no policy against those of the default program.
// `--recheck` runs one re-check round over 100,000 passes under a token rule (`--short`: 5,000)
// against the local RPC stand-in answering 429 past 12 requests a second, at SOLANA_RPC_RPS=10,
// with a light claim load alongside; it also measures getProgramAccounts against the batched reads,
// and, with SOLANA_WS_URL on the PubSub stand-in, how soon a transfer made mid-round voids its pass.
// `--check-ins` drives POST /api/v1/operator/check-ins at 50 connections over 10,000 claimed passes
// (`--short`: 1,000; `--passes N`: N), embedded and, with DATABASE_URL, on PostgreSQL.
//
// Claims are pre-signed: the init phase collects messages for fresh wallets (one pass per wallet,
// so every claim is a 201), more are issued untimed until there are enough, all are signed, and
// each is claimed once. Each database is measured twice in the same run: through the production
// server (server.ts: the API straight from the endpoint table) and through `next start`'s route
// handlers (the same table behind Next.js's router), the "before" of serving the API directly.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import bs58 from 'bs58';
import pg from 'pg';
import { loadConfig } from '../lib/config';
import { withDefaultUser } from '../lib/db/client';
import { TOKEN_PROGRAM } from '../lib/eligibility/accounts';
import { SolanaPubSubStandIn } from '../test/support/stand-ins/solana-pubsub';
import { SolanaRpcStandIn } from '../test/support/stand-ins/solana-rpc';
import { TestWallet } from '../test/support/wallet';
import { Wallets } from './support/bench-wallets';
import { createScratchDatabase } from './support/scratch-database';
import { insertPasses } from './support/seed-passes';
import { postgresCpuMs, type Runner, ServerProcess, sleep } from './support/server-process';

const SHORT = process.argv.includes('--short');
const CPU_PROFILE = process.argv.includes('--cpu-prof');
const PORT = Number(argValue('--port') ?? 3690);
const CONNECTIONS = 50;
const PHASE_SECONDS = Number(argValue('--seconds') ?? (SHORT ? 2 : 10));
/** `--claims N`: every count of claims below at most N. */
const MAX_CLAIMS = Number(argValue('--claims') ?? Infinity);
/** Claims between the two RSS samples. */
const CLAIMS_FOR_RSS = Math.min(MAX_CLAIMS, SHORT ? 2_000 : 50_000);
/**
 * Claims (with their inits) before the first RSS sample: the heap grows to its working size under
 * 50 connections over the first few thousand requests (measured on PostgreSQL: 306 MiB after
 * 1,000 claims, then flat at 460-475 MiB from 10,000 to 60,000), and "after warm-up" means that.
 */
const WARM_UP_CLAIMS = Math.min(MAX_CLAIMS, SHORT ? 500 : 10_000);

/** Claims issued for a route-handler run: more than 10 s of claims at its rate. */
const ROUTE_HANDLER_CLAIMS = Math.min(MAX_CLAIMS, SHORT ? 2_000 : 15_000);

/** A pass's first download builds and signs its file (lib/passes); every later one serves the bytes kept in memory. */
const FIRST_DOWNLOAD = 'first download (builds the pass)';

type Row = {
  run: string;
  endpoint: string;
  rps: number;
  p50: number;
  p99: number;
  /** The slowest request: a stall shows here first. */
  max: number;
  errors: number;
  requests: number;
  /** The server's CPU time per request: steadier than req/s on a shared machine. */
  cpuMs: number;
  /** A local PostgreSQL server's CPU time per request (0 on the embedded database). */
  postgresCpuMs: number;
  /** The load generator's own CPU time per request (this process). */
  loadCpuMs: number;
};
type Memory = { run: string; warm: number; afterClaims: number; claims: number };

function argValue(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at === -1 ? undefined : process.argv[at + 1];
}

type Load = {
  /** The request to send next (method, path, body), or a fixed one. */
  request: () => { method?: 'GET' | 'POST'; path: string; body?: string };
  onBody?: (status: number, body: string) => void;
  /** Stop after this many requests (else after the phase's duration). */
  amount?: number;
  seconds?: number;
  connections?: number;
  /** Sent with every request, beside the JSON content type. */
  headers?: Record<string, string>;
};

/** Runs one load phase with autocannon and returns its figures. */
async function drive(server: ServerProcess, load: Load): Promise<Omit<Row, 'run' | 'endpoint'>> {
  const seconds = load.seconds ?? PHASE_SECONDS;
  const cpuBefore = server.cpuMs();
  const postgresBefore = postgresCpuMs();
  const loadBefore = process.cpuUsage();
  const started = performance.now();
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: server.baseUrl,
        connections: Math.min(load.connections ?? CONNECTIONS, load.amount ?? Infinity),
        ...(load.amount ? { amount: load.amount } : { duration: seconds }),
        headers: { 'content-type': 'application/json', ...load.headers },
        requests: [
          {
            setupRequest: (request) => ({ ...request, ...load.request() }),
            onResponse: (status, body) => {
              lastAnswer = performance.now();
              load.onBody?.(status, body);
            },
          },
        ],
      },
      (error, finished) => (error ? reject(error) : resolve(finished)),
    );
    // A fixed amount still ends at the phase's duration if the server is slower than that.
    if (load.amount && load.seconds !== Infinity) setTimeout(() => instance.stop(), seconds * 1000).unref();
  });
  const requests = result.requests.total;
  // Up to the last answer: autocannon ends a fixed amount on its next one-second tick, and its
  // `duration` is whole seconds, so 1,000 claims done in 0.4 s would read as 1,000/s.
  const elapsedSeconds = ((load.amount ? lastAnswer : performance.now()) - started) / 1000;
  return {
    rps: requests / elapsedSeconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors + result.non2xx,
    requests,
    cpuMs: (server.cpuMs() - cpuBefore) / Math.max(1, requests),
    postgresCpuMs: (postgresCpuMs() - postgresBefore) / Math.max(1, requests),
    loadCpuMs: (() => {
      const used = process.cpuUsage(loadBefore);
      return (used.user + used.system) / 1000 / Math.max(1, requests);
    })(),
  };
}

type Issued = { publicKey: string; message: string };

function initLoad(wallets: Wallets, issued: Issued[], program?: string): Pick<Load, 'request' | 'onBody'> {
  const of = program ? `&program=${program}` : '';
  return {
    request: () => ({ method: 'GET', path: `/api/v1/claim/init?publicKey=${wallets.fresh()}${of}` }),
    onBody: (status, body) => {
      if (status !== 200) return;
      const { address, message } = JSON.parse(body) as { address: string; message: string };
      issued.push({ publicKey: address, message });
    },
  };
}

/** Signs every issued message; each becomes one claim body. */
function signAll(wallets: Wallets, issued: Issued[], program?: string): string[] {
  return issued.map(({ publicKey, message }) =>
    JSON.stringify({ message, signature: wallets.sign(publicKey, message), publicKey, ...(program ? { program } : {}) }),
  );
}

/** Claims each body once; `consumed()` says how many were handed out (some may be sent but unanswered when a phase stops). */
function claimLoad(bodies: string[], downloadPaths: string[]): Pick<Load, 'request' | 'onBody'> & { consumed: () => number } {
  let next = 0;
  return {
    consumed: () => next,
    request: () => ({ method: 'POST', path: '/api/v1/claim/wallet-pass', body: bodies[next++] ?? bodies.at(-1)! }),
    onBody: (status, body) => {
      if (status !== 201) return;
      const url = new URL((JSON.parse(body) as { downloadUrl: string }).downloadUrl);
      downloadPaths.push(url.pathname + url.search);
    },
  };
}

/** Issues messages (untimed) until there are `count`. */
async function issueUntil(server: ServerProcess, wallets: Wallets, issued: Issued[], count: number, program?: string): Promise<void> {
  while (issued.length < count) {
    await drive(server, { ...initLoad(wallets, issued, program), amount: count - issued.length, seconds: Infinity });
  }
}

/** Claims every body (untimed), for the RSS sample after many claims. */
async function claimAll(server: ServerProcess, bodies: string[], downloadPaths: string[]): Promise<number> {
  if (bodies.length === 0) return 0;
  const { requests, errors } = await drive(server, { ...claimLoad(bodies, downloadPaths), amount: bodies.length, seconds: Infinity });
  return requests - errors;
}

/**
 * One run: the production server (every endpoint, and RSS after CLAIMS_FOR_RSS claims), or
 * `next start` (/health, init and claim through the route handlers).
 */
async function benchService(run: string, runner: Runner, port: number, env: Record<string, string>): Promise<{ rows: Row[]; memory?: Memory }> {
  const full = runner === 'server';
  const claimCount = full ? CLAIMS_FOR_RSS : ROUTE_HANDLER_CLAIMS;
  const logDir = mkdtempSync(path.join(tmpdir(), 'wpc-bench-'));
  const server = await ServerProcess.start(
    port,
    { RATE_LIMIT_PER_MINUTE: '0', ...env },
    { runner, logFile: path.join(logDir, 'server.log'), nodeArgs: CPU_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${logDir}`] : [] },
  );
  const wallets = new Wallets();
  const rows: Row[] = [];
  const row = (endpoint: string, figures: Omit<Row, 'run' | 'endpoint'>) => rows.push({ run, endpoint, ...figures });
  try {
    progress(`${run}: warming up`);
    wallets.grow(WARM_UP_CLAIMS);
    await drive(server, { request: () => ({ path: '/health' }), seconds: Math.min(2, PHASE_SECONDS) });
    const warmIssued: Issued[] = [];
    await issueUntil(server, wallets, warmIssued, WARM_UP_CLAIMS);
    const warmPaths: string[] = [];
    await claimAll(server, signAll(wallets, warmIssued), warmPaths);
    await drive(server, { request: () => ({ path: warmPaths[0]! }), amount: 200, seconds: Infinity });
    const warm = server.rssBytes();

    progress(`${run}: /health`);
    row('/health', await drive(server, { request: () => ({ path: '/health' }) }));

    progress(`${run}: init`);
    wallets.grow(claimCount);
    const issued: Issued[] = [];
    row('init', await drive(server, initLoad(wallets, issued)));

    progress(`${run}: issuing and signing ${claimCount} messages`);
    await issueUntil(server, wallets, issued, claimCount);
    const bodies = signAll(wallets, issued.slice(0, claimCount));

    progress(`${run}: claim`);
    const downloadPaths: string[] = [];
    const timed = claimLoad(bodies, downloadPaths);
    const claim = await drive(server, { ...timed, amount: bodies.length });
    row('claim', claim);
    if (!full) return { rows };
    progress(`${run}: claiming the rest of ${claimCount}`);
    const claims = claim.requests - claim.errors + (await claimAll(server, bodies.slice(timed.consumed()), downloadPaths));
    const afterClaims = server.rssBytes();

    progress(`${run}: download`);
    // Built: the first download built each pass's file and kept it in memory; later ones serve those bytes.
    const stored = downloadPaths.slice(0, 100);
    for (const p of stored) await fetch(`${server.baseUrl}${p}`).then((r) => r.arrayBuffer());
    let storedNext = 0;
    row('download', await drive(server, { request: () => ({ path: stored[storedNext++ % stored.length]! }) }));
    let firstNext = stored.length;
    row(FIRST_DOWNLOAD, await drive(server, { request: () => ({ path: downloadPaths[firstNext++ % downloadPaths.length]! }) }));
    return { rows, memory: { run, warm, afterClaims, claims } };
  } finally {
    await server.stop();
    server.removeDataDir();
    if (CPU_PROFILE) console.log(`CPU profiles of ${run}: ${logDir}`);
    else rmSync(logDir, { recursive: true, force: true });
  }
}

const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);
const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
const fixed = (value: number, digits = 0) => value.toFixed(digits);

function printTable(rows: Row[], memory: Memory[]): void {
  const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ${Math.round(totalmem() / 1024 ** 3)} GiB, Node ${process.versions.node}`;
  console.log(`\nwallet-pass-claim benchmark${SHORT ? ' (short)' : ''}: ${new Date().toISOString().slice(0, 10)}, ${machine}`);
  console.log(`${CONNECTIONS} connections, ${PHASE_SECONDS} s per endpoint, rate limiting off, LOG_LEVEL=info\n`);
  console.log('| run | endpoint | req/s | p50 ms | p99 ms | max ms | errors | × /health | server CPU ms/req |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const health = rows.find((r) => r.run === row.run && r.endpoint === '/health');
    const ratio = health ? fixed(row.rps / health.rps, 2) : '';
    console.log(
      `| ${row.run} | ${row.endpoint} | ${fixed(row.rps)} | ${fixed(row.p50)} | ${fixed(row.p99)} | ` +
        `${fixed(row.max)} | ${row.errors} | ${ratio} | ${fixed(row.cpuMs, 2)} |`,
    );
  }
  console.log('');
  for (const m of memory) {
    console.log(`${m.run}: RSS ${mib(m.warm)} after warm-up, ${mib(m.afterClaims)} after ${m.claims} claims (× ${fixed(m.afterClaims / m.warm, 2)})`);
  }
  console.log('');
  for (const m of memory) {
    const of = (endpoint: string, run = m.run) => rows.find((r) => r.run === run && r.endpoint === endpoint)!;
    const before = `${m.run}${ROUTE_HANDLERS}`;
    const errors = rows.filter((r) => r.run === m.run && r.endpoint !== FIRST_DOWNLOAD).reduce((sum, r) => sum + r.errors, 0);
    const goal = (met: boolean, text: string) => console.log(`${met ? 'met    ' : 'NOT MET'}  ${m.run}: ${text}`);
    const times = (endpoint: string) => of(endpoint).rps / of(endpoint, before).rps;
    goal(of('claim').p99 <= 100, `claim p99 ${fixed(of('claim').p99)} ms (goal <= 100)`);
    goal(errors === 0, `${errors} errors on /health, init, claim and download (goal 0)`);
    goal(times('claim') >= 2, `claims/s ${fixed(times('claim'), 1)} × the route handlers' (goal >= 2)`);
    goal(of('claim').rps >= 720, `claims/s ${fixed(of('claim').rps)}, ${fixed(of('claim').rps / 72, 1)} × the replaced service's 72/s (goal >= 10 ×)`);
    goal(times('init') >= 5, `init/s ${fixed(times('init'), 1)} × the route handlers' (goal >= 5; ${fixed(of('init').rps)}/s on the way to 4,000)`);
    goal(times('/health') >= 5, `health/s ${fixed(times('/health'), 1)} × the route handlers' (goal >= 5)`);
    goal(m.afterClaims <= 1.5 * m.warm, `RSS × ${fixed(m.afterClaims / m.warm, 2)} after ${m.claims} claims (goal <= 1.5)`);
  }
}

/** The name suffix of a database's route-handler run. */
const ROUTE_HANDLERS = ', next start route handlers';

/**
 * Both runs of one database, the production server first, each on empty storage: a DATA_DIR of its
 * own (ServerProcess makes one), or a scratch database of its own on the PostgreSQL server.
 */
async function benchDatabase(name: string, databaseUrl?: string): Promise<{ rows: Row[]; memory: Memory }> {
  const databases = databaseUrl ? [await createScratchDatabase(databaseUrl), await createScratchDatabase(databaseUrl)] : [];
  const env = (i: number): Record<string, string> => (databases[i] ? { DATABASE_URL: databases[i].url } : {});
  try {
    const direct = await benchService(name, 'server', PORT, env(0));
    const routeHandlers = await benchService(`${name}${ROUTE_HANDLERS}`, 'next-start', PORT + 1, env(1));
    return { rows: [...direct.rows, ...routeHandlers.rows], memory: direct.memory! };
  } finally {
    for (const database of databases) await database.drop();
  }
}

// --- Gated claims (`npm run bench -- --gated`) --------------------------------------------------
// Claims under a token CLAIM_POLICY (no allowlist, so every check reads the chain) against a local
// Solana JSON-RPC answering each request after RPC_DELAY_MS, beside the same phases with no policy.

const GATED = process.argv.includes('--gated');
const RPC_DELAY_MS = Number(argValue('--rpc-delay-ms') ?? 20);
const GATED_CLAIMS = SHORT ? 1_000 : 10_000;
/** The mint of the benchmark's token rule (any address: the local RPC answers for it). */
const GATED_MINT = 'So11111111111111111111111111111111111111112';

/** The local RPC (scripts/support/bench-rpc.ts) in a process of its own; `calls()` asks it how many it answered. */
async function startBenchRpc(delayMs: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('scripts', 'support', 'bench-rpc.ts'), String(delayMs)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout!.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8').trim()));
  });
  return {
    url,
    calls: async () => Number(await (await fetch(url)).text()),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

type GatedRow = { run: string; init: Omit<Row, 'run' | 'endpoint'>; claim: Omit<Row, 'run' | 'endpoint'>; rpcPerFlow?: number; rpcPerClaim?: number };

/** init and claim on the embedded database, with `env` (a policy, or none). */
async function benchClaimsWith(run: string, port: number, env: Record<string, string>, wallets: Wallets, rpcCalls?: () => Promise<number>): Promise<GatedRow> {
  const server = await ServerProcess.start(port, { RATE_LIMIT_PER_MINUTE: '0', ...env }, { runner: 'server', timeoutMs: 180_000 });
  try {
    progress(`${run}: warming up`);
    const warm: Issued[] = [];
    await issueUntil(server, wallets, warm, SHORT ? 200 : 2_000);
    await claimAll(server, signAll(wallets, warm), []);
    progress(`${run}: init`);
    // Enough fresh wallets for 10 s of inits at ~8,000/s and the claims after them.
    wallets.reserve((SHORT ? 20_000 : 80_000) + GATED_CLAIMS);
    const issued: Issued[] = [];
    const rpcBeforeInit = (await rpcCalls?.()) ?? 0;
    const init = await drive(server, initLoad(wallets, issued));
    const rpcForInits = ((await rpcCalls?.()) ?? 0) - rpcBeforeInit;
    const inits = init.requests;
    await issueUntil(server, wallets, issued, GATED_CLAIMS);
    const bodies = signAll(wallets, issued.slice(0, GATED_CLAIMS));
    progress(`${run}: claim`);
    const rpcBeforeClaims = (await rpcCalls?.()) ?? 0;
    const claim = await drive(server, { ...claimLoad(bodies, []), amount: bodies.length });
    const rpcForClaims = ((await rpcCalls?.()) ?? 0) - rpcBeforeClaims;
    return {
      run,
      init,
      claim,
      ...(rpcCalls
        ? { rpcPerClaim: rpcForClaims / Math.max(1, claim.requests), rpcPerFlow: rpcForInits / Math.max(1, inits) + rpcForClaims / Math.max(1, claim.requests) }
        : {}),
    };
  } finally {
    await server.stop();
    server.removeDataDir();
  }
}

async function benchGated(): Promise<void> {
  const wallets = new Wallets();
  const rpc = await startBenchRpc(RPC_DELAY_MS);
  try {
    const rows = [
      await benchClaimsWith('no policy', PORT, {}, wallets),
      await benchClaimsWith(
        `token policy, RPC ${RPC_DELAY_MS} ms`,
        PORT + 2,
        {
          CLAIM_POLICY: JSON.stringify({ token: { mint: GATED_MINT, minAmount: '1' } }),
          SOLANA_RPC_URL: rpc.url,
        },
        wallets,
        rpc.calls,
      ),
    ];
    console.log(
      `\nwallet-pass-claim gated benchmark${SHORT ? ' (short)' : ''}: ` +
        `${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, ` +
        `Node ${process.versions.node}`,
    );
    console.log(
      `embedded database, ${CONNECTIONS} connections, ${PHASE_SECONDS} s per phase, ${GATED_CLAIMS} ` +
        `claims, rate limiting off; ELIGIBILITY_CACHE_SECONDS default (30)\n`,
    );
    console.log('| run | init/s | init p99 ms | claims/s | claim p99 ms | errors | RPC calls per claim | RPC calls per init + claim |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of rows) {
      const rpcs = row.rpcPerClaim === undefined ? ['0', '0'] : [fixed(row.rpcPerClaim, 2), fixed(row.rpcPerFlow!, 2)];
      console.log(
        `| ${row.run} | ${fixed(row.init.rps)} | ${fixed(row.init.p99)} | ${fixed(row.claim.rps)} | ` +
          `${fixed(row.claim.p99)} | ${row.init.errors + row.claim.errors} | ${rpcs[0]} | ${rpcs[1]} |`,
      );
    }
  } finally {
    await rpc.close();
  }
}

// --- Programs (`npm run bench -- --programs`) ----------------------------------------------------
// One embedded server, two programs: `default` (the wallet-brand designs) and one with its own
// design, five images and no policy. Claims and first downloads alternate between the two in
// phases of the same length, so that both see the same machine.

const PROGRAMS = process.argv.includes('--programs');
const PROGRAM_CLAIMS = Math.min(MAX_CLAIMS, SHORT ? 1_000 : 8_000);
const BENCH_PROGRAM = 'bench-ticket';

/** An operator session for `wallet` (the server's OPERATOR_WALLETS). */
async function operatorToken(server: ServerProcess, wallets: Wallets, wallet: string): Promise<string> {
  const init = (await (await fetch(`${server.baseUrl}/api/v1/operator/sessions/init?publicKey=${wallet}`)).json()) as { message: string };
  const session = await fetch(`${server.baseUrl}/api/v1/operator/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ message: init.message, signature: wallets.sign(wallet, init.message), publicKey: wallet }),
  });
  return ((await session.json()) as { token: string }).token;
}

type Phase = Omit<Row, 'run' | 'endpoint'>;

/** Two halves of one load as one: requests over both times; p50 the mean of the halves', p99 and max the worse half's. */
function bothHalves(halves: Phase[]): Phase {
  const requests = halves.reduce((sum, half) => sum + half.requests, 0);
  const seconds = halves.reduce((sum, half) => sum + half.requests / half.rps, 0);
  return {
    rps: requests / seconds,
    p50: halves.reduce((sum, half) => sum + half.p50 * half.requests, 0) / Math.max(1, requests),
    p99: Math.max(...halves.map((half) => half.p99)),
    max: Math.max(...halves.map((half) => half.max)),
    errors: halves.reduce((sum, half) => sum + half.errors, 0),
    requests,
    cpuMs: halves.reduce((sum, half) => sum + half.cpuMs * half.requests, 0) / Math.max(1, requests),
    postgresCpuMs: halves.reduce((sum, half) => sum + half.postgresCpuMs * half.requests, 0) / Math.max(1, requests),
    loadCpuMs: halves.reduce((sum, half) => sum + half.loadCpuMs * half.requests, 0) / Math.max(1, requests),
  };
}

/** The benchmark's program: an event ticket with every field group, a location, dates, and five images. */
async function createBenchProgram(server: ServerProcess, token: string): Promise<void> {
  const auth = { authorization: `Bearer ${token}` };
  const created = await fetch(`${server.baseUrl}/api/v1/operator/programs`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({
      slug: BENCH_PROGRAM,
      name: 'Bench Summit',
      status: 'live',
      design: {
        style: 'eventTicket',
        logoText: 'Bench Summit',
        backgroundColor: '#101820',
        foregroundColor: '#ffffff',
        labelColor: '#14f195',
        fields: {
          header: [{ key: 'seat', label: 'Seat', value: 'Open' }],
          primary: [{ key: 'event', label: 'Event', value: 'Bench Summit' }],
          secondary: [{ key: 'holder', label: 'Holder', value: '{shortAddress}' }],
          auxiliary: [{ key: 'claimed', label: 'Claimed', value: '{claimedAt}' }],
          back: [{ key: 'address', label: 'Wallet', value: '{address}' }],
        },
        barcode: 'qr',
        locations: [{ latitude: 38.7223, longitude: -9.1393, relevantText: 'Show this at the door' }],
        relevantDate: '2030-12-12T09:00:00Z',
      },
    }),
  });
  if (created.status !== 201) throw new Error(`creating the bench program answered ${created.status}: ${await created.text()}`);
  const { default: sharp } = await import('sharp');
  for (const [kind, width, height] of [
    ['icon', 87, 87],
    ['logo', 480, 150],
    ['strip', 1125, 294],
    ['thumbnail', 270, 270],
    ['background', 540, 660],
  ] as const) {
    const png = await sharp({ create: { width, height, channels: 3, background: { r: 20, g: 241, b: 149 } } })
      .png()
      .toBuffer();
    const put = await fetch(`${server.baseUrl}/api/v1/operator/programs/${BENCH_PROGRAM}/images/${kind}`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'image/png' },
      body: png,
    });
    if (put.status !== 200) throw new Error(`uploading the ${kind} answered ${put.status}: ${await put.text()}`);
  }
}

async function benchPrograms(): Promise<void> {
  const wallets = new Wallets();
  wallets.grow(1);
  const operator = wallets.fresh();
  const server = await ServerProcess.start(PORT, { RATE_LIMIT_PER_MINUTE: '0', OPERATOR_WALLETS: operator }, { runner: 'server', timeoutMs: 180_000 });
  const rows: Row[] = [];
  try {
    await createBenchProgram(server, await operatorToken(server, wallets, operator));
    const programs = [
      { run: 'default program', program: undefined },
      { run: `${BENCH_PROGRAM} (design, 5 images)`, program: BENCH_PROGRAM },
    ];
    progress('programs: warming up');
    for (const { program } of programs) {
      const warm: Issued[] = [];
      await issueUntil(server, wallets, warm, SHORT ? 200 : 2_000, program);
      await claimAll(server, signAll(wallets, warm, program), []);
    }
    // Each program's claims and first downloads run in two halves, in the order default, program,
    // program, default: whatever drifts over the run (the database's size, the machine's other
    // load, the memory the kept files take) falls on both alike, and the ratio compares like with like.
    const order = [programs[0]!, programs[1]!, programs[1]!, programs[0]!];
    const bodies = new Map<string | undefined, string[]>();
    for (const { run, program } of programs) {
      progress(`${run}: issuing and signing ${PROGRAM_CLAIMS} messages`);
      const issued: Issued[] = [];
      await issueUntil(server, wallets, issued, PROGRAM_CLAIMS, program);
      bodies.set(program, signAll(wallets, issued, program));
    }
    const downloads = new Map<string | undefined, string[]>(programs.map(({ program }) => [program, []]));
    const claimed = new Map<string | undefined, number>(programs.map(({ program }) => [program, 0]));
    const claimHalves = new Map<string, Phase[]>();
    for (const { run, program } of order) {
      progress(`${run}: claim`);
      const all = bodies.get(program)!;
      const from = claimed.get(program)!;
      const half = all.slice(from, from === 0 ? Math.floor(all.length / 2) : all.length);
      const timed = claimLoad(half, downloads.get(program)!);
      claimHalves.set(run, [...(claimHalves.get(run) ?? []), await drive(server, { ...timed, amount: half.length })]);
      // A half the phase's time cut short is claimed untimed, so each program downloads all its passes.
      await claimAll(server, half.slice(timed.consumed()), downloads.get(program)!);
      claimed.set(program, from + half.length);
    }
    for (const { run } of programs) rows.push({ run, endpoint: 'claim', ...bothHalves(claimHalves.get(run)!) });
    const downloaded = new Map<string | undefined, number>(programs.map(({ program }) => [program, 0]));
    const downloadHalves = new Map<string, Phase[]>();
    for (const { run, program } of order) {
      progress(`${run}: first download`);
      const paths = downloads.get(program)!;
      const request = () => {
        const next = downloaded.get(program)!;
        downloaded.set(program, next + 1);
        return { path: paths[next % paths.length]! };
      };
      downloadHalves.set(run, [...(downloadHalves.get(run) ?? []), await drive(server, { request, seconds: Math.max(1, PHASE_SECONDS / 2) })]);
    }
    for (const { run } of programs) rows.push({ run, endpoint: FIRST_DOWNLOAD, ...bothHalves(downloadHalves.get(run)!) });
  } finally {
    await server.stop();
    server.removeDataDir();
  }
  console.log(
    `\nwallet-pass-claim programs benchmark${SHORT ? ' (short)' : ''}: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, Node ${process.versions.node}`,
  );
  console.log(
    `embedded database, ${CONNECTIONS} connections, each load in two halves (default, program, program, default), ${PHASE_SECONDS} s of first downloads per program, ${PROGRAM_CLAIMS} claims per program, rate limiting off\n`,
  );
  console.log('| program | endpoint | req/s | p50 ms | p99 ms | max ms | errors | server CPU ms/req |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.run} | ${row.endpoint} | ${fixed(row.rps)} | ${fixed(row.p50)} | ${fixed(row.p99)} | ${fixed(row.max)} | ${row.errors} | ${fixed(row.cpuMs, 2)} |`,
    );
  }
  const [defaultClaim, programClaim, defaultFirst, programFirst] = rows as [Row, Row, Row, Row];
  const goal = (met: boolean, text: string) => console.log(`${met ? 'met    ' : 'NOT MET'}  ${text}`);
  console.log('');
  goal(programClaim.rps >= 0.9 * defaultClaim.rps, `program claims/s ${fixed(programClaim.rps / defaultClaim.rps, 2)} × the default's (goal >= 0.9)`);
  goal(programClaim.p99 <= 100, `program claim p99 ${fixed(programClaim.p99)} ms (goal <= 100)`);
  goal(programFirst.rps >= 0.9 * defaultFirst.rps, `program first downloads/s ${fixed(programFirst.rps / defaultFirst.rps, 2)} × the default's (goal >= 0.9)`);
}

// --- Re-check rounds (`npm run bench -- --recheck`) ----------------------------------------------
// One production server on a scratch PostgreSQL database, CLAIM_POLICY a token rule, SOLANA_RPC_RPS
// 10, against the RPC stand-in (test/support/stand-ins/solana-rpc.ts: litesvm, account bytes written
// with the SPL Token codec) in this process, limited like a provider to 12 requests in any
// one-second window (past that: 429, Retry-After 1). The passes are written straight into the
// table (scripts/support/seed-passes.ts, 5,000 rows per INSERT … SELECT FROM unnest) once the server
// has migrated the database; the server's own timer starts the round. 1 % of the holders have
// sold (their associated account holds 0), 1 % hold their tokens in another account. While the
// round runs, one claim flow (init, then claim) every 2 s by a fresh holder. SOLANA_WS_URL points at
// the PubSub stand-in over the same accounts: SUBSCRIBED_TRANSFERS holders who claimed before the
// round sell, one every few seconds while it runs, and each is timed from the transfer to its pass
// voided (read through the operator API every 25 ms); not counted among the sellers.

const RECHECK = process.argv.includes('--recheck');
const RECHECK_PASSES = Number(argValue('--passes') ?? (SHORT ? 5_000 : 100_000));
const RECHECK_RPS = 10;
const PROVIDER_PER_SECOND = 12;
const CLAIM_EVERY_MS = 2_000;
const SUBSCRIBED_TRANSFERS = 5;
/** The server's timer looks every min(interval, 60 s): the first round starts about this long after start-up. */
const RECHECK_SECONDS = 30;

const randomAddress = () => bs58.encode(randomBytes(32));

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const latencies = (ms: number[]) => `${fixed(percentile(ms, 50))} / ${fixed(percentile(ms, 99))} / ${fixed(Math.max(...ms))}`;

type RoundStatus = { startedAt: string; finishedAt: string | null; checked: number; total: number; requests: number; voided: number; error: string | null };

async function benchRecheck(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('--recheck needs PostgreSQL: set DATABASE_URL or TEST_DATABASE_URL (e.g. postgres://127.0.0.1:5432/test)');
  const rpc = await SolanaRpcStandIn.start();
  rpc.limit = { perSecond: PROVIDER_PER_SECOND, retryAfterSeconds: 1 };
  const mint = await rpc.createMint({ program: 'token' });
  const holders = Array.from({ length: RECHECK_PASSES }, randomAddress);
  const sellers = new Set(holders.slice(0, Math.round(RECHECK_PASSES / 100)));
  const outside = new Set(holders.slice(sellers.size, sellers.size + Math.round(RECHECK_PASSES / 100)));
  progress(`recheck: writing ${RECHECK_PASSES} holders' token accounts in the stand-in`);
  let started = performance.now();
  for (const holder of holders) {
    if (sellers.has(holder))
      await rpc.putTokenAccount(mint, holder, 0n); // sold: the associated account is empty
    else if (outside.has(holder)) await rpc.putTokenAccount(mint, holder, 10n, randomAddress() as never);
    else await rpc.putTokenAccount(mint, holder, 10n);
  }
  const accountsSeconds = (performance.now() - started) / 1000;
  const wallets = new Wallets();
  wallets.grow(Math.ceil(600_000 / CLAIM_EVERY_MS) + 2);
  const operator = wallets.fresh();
  const claimants = wallets.publicKeys.slice(1);
  for (const claimant of claimants) await rpc.putTokenAccount(mint, claimant, 10n);
  const claimantSet = new Set(claimants);
  // Holders with real keys, whose accounts a transfer (a signed transaction) can empty mid-round.
  const pubsub = await SolanaPubSubStandIn.start(rpc);
  const watched: { wallet: TestWallet; account: Awaited<ReturnType<SolanaRpcStandIn['mintTo']>> }[] = [];
  // One transaction at a time: each expires the stand-in's blockhash.
  for (let i = 0; i < SUBSCRIBED_TRANSFERS; i++) {
    const wallet = new TestWallet();
    watched.push({ wallet, account: await rpc.mintTo(mint, wallet.publicKey, 10n) });
  }
  const watchedSet = new Set(watched.map(({ wallet }) => wallet.publicKey));

  const database = await createScratchDatabase(adminUrl);
  const server = await ServerProcess.start(
    PORT,
    {
      DATABASE_URL: database.url,
      RATE_LIMIT_PER_MINUTE: '0',
      CLAIM_POLICY: JSON.stringify({ token: { mint, minAmount: '1' } }),
      SOLANA_RPC_URL: rpc.url,
      SOLANA_RPC_RPS: String(RECHECK_RPS),
      SOLANA_WS_URL: pubsub.url,
      ELIGIBILITY_RECHECK_SECONDS: String(RECHECK_SECONDS),
      OPERATOR_WALLETS: operator,
    },
    { runner: 'server', timeoutMs: 180_000 },
  );
  const pool = new pg.Pool({ connectionString: withDefaultUser(database.url), max: 2 });
  const db = { query: async <R>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as R[] };
  try {
    progress(`recheck: inserting ${RECHECK_PASSES} passes`);
    started = performance.now();
    await insertPasses(db as never, holders);
    const insertSeconds = (performance.now() - started) / 1000;
    const token = await operatorToken(server, wallets, operator);
    const status = async (): Promise<RoundStatus | null> => {
      const answer = await fetch(`${server.baseUrl}/api/v1/operator/eligibility`, { headers: { authorization: `Bearer ${token}` } });
      return ((await answer.json()) as { lastRound: RoundStatus | null }).lastRound;
    };
    const serials = new Map<string, string>();
    for (const { wallet } of watched) {
      const init = await fetch(`${server.baseUrl}/api/v1/claim/init?publicKey=${wallet.publicKey}`);
      const { message } = (await init.json()) as { message: string };
      const claim = await fetch(`${server.baseUrl}/api/v1/claim/wallet-pass`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message, signature: wallet.sign(message), publicKey: wallet.publicKey }),
      });
      if (claim.status !== 201) throw new Error(`the watched holder's claim: ${claim.status}`);
      await claim.arrayBuffer();
      const [row] = await db.query<{ serial: string }>('select serial_number as serial from passes where public_key = $1', [wallet.publicKey]);
      serials.set(wallet.publicKey, row!.serial);
    }
    progress(`recheck: waiting for the server's timer to start the round (about ${RECHECK_SECONDS} s after start-up)`);
    while (!(await status())) await sleep(250);

    // Transfers seen by programSubscribe while the round holds the budget's round lane.
    const transferMs: number[] = [];
    const probe = (async () => {
      for (const { wallet, account } of watched) {
        // Spaced so that all land within the round (about 16 s with --short).
        await sleep(SHORT ? 1_500 : 3_000);
        const sold = performance.now();
        await rpc.transfer(account, wallet.keyPair.secretKey, randomAddress(), 10n);
        const serial = serials.get(wallet.publicKey)!;
        while (performance.now() - sold < 30_000) {
          const pass = (await (
            await fetch(`${server.baseUrl}/api/v1/operator/passes/${serial}`, { headers: { authorization: `Bearer ${token}` } })
          ).json()) as {
            status: string;
          };
          if (pass.status === 'voided') {
            transferMs.push(performance.now() - sold);
            break;
          }
          await sleep(25);
        }
      }
    })();

    // A light claim load while the round runs.
    const initMs: number[] = [];
    const claimMs: number[] = [];
    const claimStatuses = new Map<number, number>();
    let claiming = true;
    const load = (async () => {
      for (const claimant of claimants) {
        if (!claiming) break;
        const next = performance.now() + CLAIM_EVERY_MS;
        let at = performance.now();
        const init = await fetch(`${server.baseUrl}/api/v1/claim/init?publicKey=${claimant}`);
        initMs.push(performance.now() - at);
        claimStatuses.set(init.status, (claimStatuses.get(init.status) ?? 0) + 1);
        if (init.ok) {
          const { message } = (await init.json()) as { message: string };
          at = performance.now();
          const claim = await fetch(`${server.baseUrl}/api/v1/claim/wallet-pass`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ message, signature: wallets.sign(claimant, message), publicKey: claimant }),
          });
          claimMs.push(performance.now() - at);
          claimStatuses.set(claim.status, (claimStatuses.get(claim.status) ?? 0) + 1);
          await claim.arrayBuffer();
        } else await init.arrayBuffer();
        await sleep(Math.max(0, next - performance.now()));
      }
    })();
    let round: RoundStatus | null = null;
    let lastReport = 0;
    for (;;) {
      round = await status();
      if (round?.finishedAt) break;
      if (round && performance.now() - lastReport > 15_000) {
        lastReport = performance.now();
        progress(`recheck: round checked ${round.checked} of ${round.total}, ${round.requests} requests so far`);
      }
      await sleep(1000);
    }
    claiming = false;
    await load;
    await probe;
    const seconds = (Date.parse(round.finishedAt!) - Date.parse(round.startedAt)) / 1000;
    const byMethod = new Map<string, number>();
    for (const arrival of rpc.arrivals) {
      if (arrival.throttled || claimantSet.has(String(arrival.first))) continue;
      byMethod.set(arrival.method, (byMethod.get(arrival.method) ?? 0) + 1);
    }
    const voided = new Set(
      (await db.query<{ key: string }>(`select public_key as key from passes where status = 'voided'`))
        .map((row) => row.key)
        .filter((key) => !watchedSet.has(key)),
    );
    const voidedSellers = [...voided].filter((key) => sellers.has(key)).length;
    const busiest = rpc.busiestSecond();

    progress('recheck: measuring getProgramAccounts by mint against the batched reads');
    rpc.limit = null;
    const roundBytes = rpc.answeredBytes;
    const gpa = await measureProgramAccounts(rpc, mint);

    const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, Node ${process.versions.node}`;
    console.log(`\nwallet-pass-claim re-check benchmark${SHORT ? ' (short)' : ''}: ${new Date().toISOString().slice(0, 10)}, ${machine}`);
    console.log(
      `${RECHECK_PASSES} passes under {"token": {"mint", "minAmount": "1"}} (Token program), PostgreSQL, SOLANA_RPC_RPS=${RECHECK_RPS}; ` +
        `the stand-in answers 429 past ${PROVIDER_PER_SECOND} requests in any one-second window`,
    );
    console.log(
      `set-up: ${RECHECK_PASSES} token accounts written with the SPL Token codec in ${fixed(accountsSeconds, 1)} s; ` +
        `${RECHECK_PASSES} passes inserted straight into PostgreSQL (scripts/support/seed-passes.ts: INSERT … SELECT FROM unnest, ` +
        `5,000 rows a statement) in ${fixed(insertSeconds, 1)} s; ${sellers.size} sellers (associated account emptied), ` +
        `${outside.size} holding outside the associated account; one claim flow every ${CLAIM_EVERY_MS / 1000} s during the round\n`,
    );
    const methods = [...byMethod.entries()].map(([method, n]) => `${method} ${n}`).join(', ');
    console.log('| figure | value |');
    console.log('|---|---|');
    console.log(`| round duration | ${fixed(seconds, 1)} s (${fixed(seconds / 60, 2)} min) |`);
    console.log(`| passes checked | ${round.checked} of ${round.total}${round.error ? ` (stopped: ${round.error})` : ''} |`);
    console.log(`| round requests (the round's record) | ${round.requests} |`);
    console.log(`| round requests at the stand-in, by method | ${methods} |`);
    console.log(`| requests answered 429 by the stand-in | ${rpc.throttled} |`);
    console.log(`| busiest one-second window at the stand-in | ${busiest} requests |`);
    console.log(`| voided | ${voided.size} (sellers: ${sellers.size}; sellers voided: ${voidedSellers}; others voided: ${voided.size - voidedSellers}) |`);
    console.log(`| claim flows during the round | ${initMs.length} (answers: ${[...claimStatuses].map(([code, n]) => `${n} × ${code}`).join(', ')}) |`);
    console.log(`| init p50 / p99 / max ms (checks the wallet: one RPC request) | ${latencies(initMs)} |`);
    console.log(`| claim p50 / p99 / max ms (the init's answer cached) | ${latencies(claimMs)} |`);
    console.log(`| bytes answered to the round and claims | ${mib(roundBytes)} |`);
    console.log(
      `| transfer → pass voided, seen by programSubscribe mid-round (${transferMs.length} of ${SUBSCRIBED_TRANSFERS}) p50 / max ms | ${fixed(percentile(transferMs, 50))} / ${fixed(Math.max(...transferMs))} |`,
    );
    console.log('\nReading every holder of the mint instead (same stand-in, no limit):\n');
    console.log('| read | requests | bytes | stand-in ms | at 10 requests/s |');
    console.log('|---|---:|---:|---:|---:|');
    for (const row of gpa) console.log(`| ${row.read} | ${row.requests} | ${mib(row.bytes)} | ${fixed(row.ms)} | ${fixed(row.requests / RECHECK_RPS, 1)} s |`);
    const batched = round.requests;
    console.log(`| batched reads (this round) | ${batched} | ${mib(roundBytes)} | | ${fixed(batched / RECHECK_RPS, 1)} s |`);
    const goal = (met: boolean, text: string) => console.log(`${met ? 'met    ' : 'NOT MET'}  ${text}`);
    console.log('');
    const scale = RECHECK_PASSES / 100_000;
    goal(seconds <= 360 * scale, `round ${fixed(seconds, 1)} s (goal <= ${fixed(360 * scale)} s${SHORT ? ', scaled' : ''})`);
    goal(round.requests <= 3200 * scale, `${round.requests} requests (goal <= ${fixed(3200 * scale)})`);
    goal(
      voidedSellers === sellers.size && voided.size === sellers.size,
      `${voidedSellers} of ${sellers.size} sellers voided, ${voided.size - voidedSellers} others`,
    );
    goal(rpc.throttled === 0, `${rpc.throttled} requests answered 429 (goal 0)`);
    goal(percentile(claimMs, 99) <= 150, `claim p99 ${fixed(percentile(claimMs, 99))} ms (goal <= 150)`);
    goal(percentile(initMs, 99) <= 150, `init p99 ${fixed(percentile(initMs, 99))} ms (goal <= 150)`);
    goal(
      transferMs.length === SUBSCRIBED_TRANSFERS && Math.max(...transferMs) <= 5000,
      `${transferMs.length} of ${SUBSCRIBED_TRANSFERS} transfers voided their pass mid-round, the slowest in ${fixed(Math.max(...transferMs))} ms (goal <= 5000)`,
    );
  } finally {
    await pool.end();
    await server.stop();
    server.removeDataDir();
    await database.drop();
    await pubsub.close();
    await rpc.close();
  }
}

/** Every holder of `mint` read with getProgramAccounts (one answer), and paged with getProgramAccountsV2 (10,000 a page). */
async function measureProgramAccounts(rpc: SolanaRpcStandIn, mint: string): Promise<{ read: string; requests: number; bytes: number; ms: number }[]> {
  const filters = [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint } }];
  // Only the owner and the amount: bytes 32..72 of each token account.
  const options = { encoding: 'base64', dataSlice: { offset: 32, length: 40 }, filters };
  const post = async (method: string, params: unknown[]) => {
    const response = await fetch(rpc.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const text = await response.text();
    return { bytes: Buffer.byteLength(text), result: (JSON.parse(text) as { result: unknown }).result };
  };
  const rows: { read: string; requests: number; bytes: number; ms: number }[] = [];
  let started = performance.now();
  const whole = await post('getProgramAccounts', [TOKEN_PROGRAM, options]);
  rows.push({
    read: `getProgramAccounts by mint, one answer (${(whole.result as unknown[]).length} accounts)`,
    requests: 1,
    bytes: whole.bytes,
    ms: performance.now() - started,
  });
  started = performance.now();
  let paginationKey: string | null = null;
  let requests = 0;
  let bytes = 0;
  let accounts = 0;
  do {
    const page = await post('getProgramAccountsV2', [TOKEN_PROGRAM, { ...options, limit: 10_000, ...(paginationKey ? { paginationKey } : {}) }]);
    const result = page.result as { accounts: unknown[]; paginationKey: string | null };
    requests++;
    bytes += page.bytes;
    accounts += result.accounts.length;
    paginationKey = result.paginationKey;
  } while (paginationKey);
  rows.push({ read: `getProgramAccountsV2 by mint, pages of 10,000 (${accounts} accounts)`, requests, bytes, ms: performance.now() - started });
  return rows;
}

// --- Check-ins (`npm run bench -- --check-ins`) ------------------------------------------------
// One production server per database (embedded; PostgreSQL too when DATABASE_URL is set, on a
// scratch database), CHECK_IN_PASSES passes claimed untimed, then POST /api/v1/operator/check-ins at
// 50 connections for a phase, cycling through the passes by serial number: the first round of the
// cycle admits each pass once, later rounds answer already_checked_in (the rule `once`), each the
// same one statement. By serial (the door's typed path) rather than the scanned code: the code adds
// one HMAC-SHA256 of a few dozen bytes (microseconds) and nothing else.

const CHECK_INS = process.argv.includes('--check-ins');
/** `--passes N`: passes to check in (more than a phase admits makes every request an admission). */
const CHECK_IN_PASSES = Number(argValue('--passes') ?? Math.min(MAX_CLAIMS, SHORT ? 1_000 : 10_000));

/** Every pass's serial number, through the operator pass list (200 a page). */
async function serialNumbers(server: ServerProcess, token: string): Promise<string[]> {
  const serials: string[] = [];
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ limit: '200', ...(cursor ? { cursor } : {}) });
    const page = (await (await fetch(`${server.baseUrl}/api/v1/operator/passes?${query}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      passes: { serialNumber: string }[];
      nextCursor: string | null;
    };
    serials.push(...page.passes.map((pass) => pass.serialNumber));
    cursor = page.nextCursor;
  } while (cursor);
  return serials;
}

async function benchCheckInsOn(name: string, databaseUrl?: string): Promise<Row & { admitted: number }> {
  const database = databaseUrl ? await createScratchDatabase(databaseUrl) : undefined;
  const wallets = new Wallets();
  wallets.grow(1);
  const operator = wallets.fresh();
  const profileDir = CPU_PROFILE ? mkdtempSync(path.join(tmpdir(), 'wpc-bench-')) : undefined;
  const server = await ServerProcess.start(
    PORT,
    { RATE_LIMIT_PER_MINUTE: '0', OPERATOR_WALLETS: operator, LOG_LEVEL: 'warn', ...(database ? { DATABASE_URL: database.url } : {}) },
    { runner: 'server', timeoutMs: 180_000, nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [] },
  );
  if (profileDir) console.log(`CPU profile of ${name}: ${profileDir}`);
  try {
    progress(`${name}: claiming ${CHECK_IN_PASSES} passes`);
    const issued: Issued[] = [];
    await issueUntil(server, wallets, issued, CHECK_IN_PASSES);
    await claimAll(server, signAll(wallets, issued), []);
    const token = await operatorToken(server, wallets, operator);
    const serials = await serialNumbers(server, token);
    progress(`${name}: check-ins`);
    let next = 0;
    let admitted = 0;
    const row = await drive(server, {
      request: () => ({
        method: 'POST',
        path: '/api/v1/operator/check-ins',
        body: JSON.stringify({ serialNumber: serials[next++ % serials.length] }),
      }),
      headers: { authorization: `Bearer ${token}` },
      onBody: (status, body) => {
        if (status === 200 && (JSON.parse(body) as { admitted: boolean }).admitted) admitted++;
      },
    });
    return { run: name, endpoint: 'check-in', ...row, admitted };
  } finally {
    await server.stop();
    server.removeDataDir();
    await database?.drop();
  }
}

async function benchCheckIns(): Promise<void> {
  const rows = [await benchCheckInsOn('embedded (PGlite)')];
  const databaseUrl = loadConfig(process.env).databaseUrl;
  if (databaseUrl) rows.push(await benchCheckInsOn('PostgreSQL', databaseUrl));
  console.log(
    `\nwallet-pass-claim check-in benchmark${SHORT ? ' (short)' : ''}: ${new Date().toISOString().slice(0, 10)}, ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'CPU'}, Node ${process.versions.node}`,
  );
  console.log(`${CONNECTIONS} connections, ${PHASE_SECONDS} s, ${CHECK_IN_PASSES} passes, rule once\n`);
  console.log('| database | check-ins/s | p50 ms | p99 ms | max ms | errors | admitted | CPU ms/req: server | PostgreSQL | load generator |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.run} | ${fixed(row.rps)} | ${fixed(row.p50)} | ${fixed(row.p99)} | ${fixed(row.max)} | ${row.errors} | ${row.admitted} | ${fixed(row.cpuMs, 2)} | ${fixed(row.postgresCpuMs, 2)} | ${fixed(row.loadCpuMs, 2)} |`,
    );
  }
  const goal = (met: boolean, text: string) => console.log(`${met ? 'met    ' : 'NOT MET'}  ${text}`);
  console.log('');
  for (const row of rows) {
    const postgres = row.run === 'PostgreSQL';
    const [rps, p99] = postgres ? [2_000, 50] : [1_000, 100];
    goal(row.rps >= rps, `${row.run}: ${fixed(row.rps)} check-ins/s (goal >= ${rps})`);
    goal(row.p99 <= p99, `${row.run}: check-in p99 ${fixed(row.p99)} ms (goal <= ${p99})`);
    goal(row.errors === 0, `${row.run}: ${row.errors} errors`);
  }
}

async function main(): Promise<void> {
  if (!existsSync(path.join(process.cwd(), '.next', 'BUILD_ID'))) {
    throw new Error('no production build: run `npm run build` first');
  }
  if (GATED) return benchGated();
  if (PROGRAMS) return benchPrograms();
  if (RECHECK) return benchRecheck();
  if (CHECK_INS) return benchCheckIns();
  const runs = [await benchDatabase('embedded (PGlite)')];
  const databaseUrl = loadConfig(process.env).databaseUrl;
  if (databaseUrl) runs.push(await benchDatabase('PostgreSQL', databaseUrl));
  const rows = runs.flatMap((run) => run.rows);
  const memory = runs.map((run) => run.memory);
  printTable(rows, memory);
}

main().catch((error: unknown) => {
  console.error('bench failed:', error);
  process.exit(1);
});
