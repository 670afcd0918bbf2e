// npm run bench:adapter [-- --seconds 5 --rounds 3]
//
// The Node-to-Fetch adapter server.ts answers the API through, measured against the other
// candidate: srvx's NodeRequest/sendNodeResponse against @hono/node-server's getRequestListener
// (with its default of replacing the global Request and Response, and without), each serving the
// same Fetch handler (scripts/support/adapter-server.ts) in a process of its own, driven by
// autocannon with 50 connections, in alternating rounds so that noise from other work on the
// machine falls on all alike. Prints req/s, p99 and the server's CPU time per request for
// GET (a JSON answer) and POST (a JSON body read and echoed). Figures to read, never asserted.
import { spawn } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';
import { processCpuMs } from './support/server-process';

const ADAPTERS = ['srvx', 'hono', 'hono-keep-globals'] as const;
type Adapter = (typeof ADAPTERS)[number];

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at === -1 ? fallback : Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 1) throw new Error(`usage: bench-adapter [--seconds N] [--rounds N]`);
  return value;
}
const SECONDS = option('seconds', 5);
const ROUNDS = option('rounds', 3);
const CONNECTIONS = 50;
const CLAIM_LIKE_BODY = JSON.stringify({ message: 'x'.repeat(400), signature: 'y'.repeat(88), publicKey: 'z'.repeat(44) });

async function startServer(adapter: Adapter) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('scripts', 'support', 'adapter-server.ts'), adapter], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`adapter-server ${adapter} exited with ${code}`)));
    child.stdout!.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim())));
  });
  return {
    port,
    cpuMs: () => processCpuMs(child.pid),
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

type Totals = { requests: number; seconds: number; cpuMs: number; p99: number[]; errors: number };

async function drive(port: number, method: 'GET' | 'POST', seconds: number) {
  return autocannon({
    url: `http://127.0.0.1:${port}/`,
    connections: CONNECTIONS,
    duration: seconds,
    method,
    ...(method === 'POST' ? { body: CLAIM_LIKE_BODY, headers: { 'content-type': 'application/json' } } : {}),
  });
}

async function main(): Promise<void> {
  const totals = new Map<string, Totals>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const adapter of round % 2 === 0 ? ADAPTERS : [...ADAPTERS].reverse()) {
      const server = await startServer(adapter);
      try {
        await drive(server.port, 'GET', 1); // warm-up
        for (const method of ['GET', 'POST'] as const) {
          const cpuBefore = server.cpuMs();
          const result = await drive(server.port, method, SECONDS);
          const key = `${adapter} ${method}`;
          const total = totals.get(key) ?? { requests: 0, seconds: 0, cpuMs: 0, p99: [], errors: 0 };
          total.requests += result.requests.total;
          total.seconds += result.duration;
          total.cpuMs += server.cpuMs() - cpuBefore;
          total.p99.push(result.latency.p99);
          total.errors += result.errors + result.non2xx;
          totals.set(key, total);
        }
      } finally {
        await server.stop();
      }
      process.stderr.write(`bench-adapter: round ${round + 1}/${ROUNDS} ${adapter} done\n`);
    }
  }
  console.log(
    `\nNode-to-Fetch adapters: ${new Date().toISOString().slice(0, 10)}, Node ${process.versions.node}, ` +
      `${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each\n`,
  );
  console.log('| adapter | request | req/s | p99 ms (worst round) | server CPU µs/req | errors |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const [key, total] of totals) {
    const [adapter, method] = key.split(' ');
    console.log(
      `| ${adapter} | ${method} | ${Math.round(total.requests / total.seconds)} | ` +
        `${Math.max(...total.p99)} | ${Math.round((total.cpuMs * 1000) / total.requests)} | ${total.errors} |`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
