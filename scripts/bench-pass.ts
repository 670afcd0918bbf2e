// npm run bench:pass [-- --passes 2000 --concurrency 8]
//
// Builds the same passes with this service's builder (lib/passes/pkpass.ts buildPkpass) and with
// plain passkit-generator (the same pass model, exported by its own getAsBuffer), in one run, in
// alternating batches so that noise from other work on the machine falls on both alike. Prints
// passes/s, p50 and p99 build time, how long one pass keeps the event loop busy (p99), the p99
// event-loop delay while each builds, and the ratios.
// Timings are figures to read, never asserted: scripts/bench-pass.test.ts only checks it runs.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHistogram, type IntervalHistogram, monitorEventLoopDelay, performance, type RecordableHistogram } from 'node:perf_hooks';
import { ensureDevelopmentChain } from '../lib/passes/certificates';
import type { PassContent } from '../lib/passes/content';
import { createManifestSigner } from '../lib/passes/manifest-signer';
import { buildPkpass, type PassIssuer } from '../lib/passes/pkpass';
import { WALLET_TYPES } from '../lib/wallet-types';
import { passkitGeneratorExport } from './support/passkit-generator-export';

type Options = { passes: number; batch: number; concurrency: number };

function parseOptions(argv: string[]): Options {
  const options: Options = { passes: 2000, batch: 50, concurrency: 8 };
  for (let i = 0; i < argv.length; i += 2) {
    const name = argv[i]?.replace(/^--/, '');
    const value = Number(argv[i + 1]);
    if (!name || !(name in options) || !Number.isInteger(value) || value < 1) {
      throw new Error(`usage: bench-pass [--passes N] [--batch N] [--concurrency N] (got ${argv.slice(i, i + 2).join(' ')})`);
    }
    options[name as keyof Options] = value;
  }
  return options;
}

/** The event-loop timer fires every millisecond; a reading is the time between two firings. */
const LOOP_RESOLUTION_MS = 1;

type Measured = {
  label: string;
  durations: number[];
  /** Per pass, how long the event loop was busy (not waiting) while the pass was built. */
  busy: number[];
  wallMs: number;
  loop: RecordableHistogram;
};

const newMeasured = (label: string): Measured => ({ label, durations: [], busy: [], wallMs: 0, loop: createHistogram() });

/**
 * Runs `work` under a fresh event-loop monitor and adds its readings to `into`. A fresh monitor
 * per batch, because a monitor that is disabled and enabled again records the whole pause as
 * one reading. Node cannot add an interval histogram to another, so the batch's readings are
 * re-recorded from its percentiles, one per reading (exact up to the histogram's buckets).
 */
async function monitored(into: RecordableHistogram, work: () => Promise<void>): Promise<void> {
  const monitor: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  monitor.enable();
  await work();
  monitor.disable();
  for (let i = 1; i <= monitor.count; i++) into.record(Math.max(1, Math.round(monitor.percentile((i / monitor.count) * 100))));
}

/** Lets the event loop turn, as it would between two requests. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

const ADDRESSES = [
  '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  'So11111111111111111111111111111111111111112',
  'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
];

function content(i: number): PassContent {
  return {
    serialNumber: randomUUID(),
    publicKey: ADDRESSES[i % ADDRESSES.length]!,
    walletType: WALLET_TYPES[i % WALLET_TYPES.length]!,
    claimedAt: new Date(),
  };
}

/** Builds `count` passes one after another, timing each, with the loop monitor on. */
function runSequential(measured: Measured, count: number, build: (c: PassContent) => unknown): Promise<void> {
  return monitored(measured.loop, async () => {
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const c = content(i);
      const t0 = performance.now();
      const loopBefore = performance.eventLoopUtilization();
      await build(c);
      measured.busy.push(performance.eventLoopUtilization(loopBefore).active);
      measured.durations.push(performance.now() - t0);
      await yieldToLoop();
    }
    measured.wallMs += performance.now() - started;
  });
}

/** Builds `count` passes with `concurrency` in flight, as concurrent first downloads would. */
function runConcurrent(measured: Measured, count: number, concurrency: number, build: (c: PassContent) => Promise<unknown>): Promise<void> {
  return monitored(measured.loop, async () => {
    let next = 0;
    const started = performance.now();
    const worker = async () => {
      while (next < count) {
        const c = content(next++);
        const t0 = performance.now();
        await build(c);
        measured.durations.push(performance.now() - t0);
        await yieldToLoop(); // the next download arrives in a later turn of the loop
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    measured.wallMs += performance.now() - started;
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

type Row = { label: string; passesPerSecond: number; p50: number; p99: number; busyP99: number; loopP99: number };

function row(m: Measured): Row {
  return {
    label: m.label,
    passesPerSecond: (m.durations.length / m.wallMs) * 1000,
    p50: percentile(m.durations, 50),
    p99: percentile(m.durations, 99),
    busyP99: percentile(m.busy, 99),
    loopP99: m.loop.percentile(99) / 1e6,
  };
}

async function main(argv: string[]): Promise<void> {
  const options = parseOptions(argv);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-pass-'));
  try {
    const signing = ensureDevelopmentChain(dataDir);
    const issuer: PassIssuer = {
      signing,
      signer: await createManifestSigner(signing),
      organizationName: 'Benchmark Issuer',
      description: 'Solana wallet pass',
      publicBaseUrl: 'https://passes.example.com',
      chainId: 'mainnet',
    };
    const ours = (c: PassContent) => buildPkpass(c, issuer);
    const passkitGenerator = (c: PassContent) => passkitGeneratorExport(c, issuer);

    // Warm-up: module loading, JIT, the design image cache.
    for (let i = 0; i < 20; i++) {
      passkitGenerator(content(i));
      await ours(content(i));
    }

    const reference = newMeasured(`passkit-generator ${packageVersion('passkit-generator')}`);
    const sequential = newMeasured('ours, 1 in flight');
    const concurrent = newMeasured(`ours, ${options.concurrency} in flight`);
    const idle = newMeasured('(idle loop, nothing building)');
    const loadBefore = os.loadavg()[0]!;
    for (let done = 0; done < options.passes; done += options.batch) {
      const count = Math.min(options.batch, options.passes - done);
      await runSequential(reference, count, passkitGenerator);
      await runSequential(sequential, count, ours);
      await runConcurrent(concurrent, count, options.concurrency, ours);
      // The machine's own noise floor: what the loop monitor reads with nothing to do.
      await monitored(idle.loop, () => new Promise((resolve) => setTimeout(resolve, 100)));
    }
    const loadAfter = os.loadavg()[0]!;

    const rows = [reference, sequential, concurrent].map(row);
    const cpu = os.cpus();
    console.log(
      `pass build benchmark: ${options.passes} passes per builder, alternating batches of ${options.batch}\n` +
        `${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpu.length} x ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ` +
        `load average ${loadBefore.toFixed(2)} -> ${loadAfter.toFixed(2)}\n`,
    );
    const header = ['builder', 'passes/s', 'p50 ms', 'p99 ms', 'loop busy/pass p99 ms', 'loop delay p99 ms', 'vs passkit-generator'];
    const lines = rows.map((r) => [
      r.label,
      r.passesPerSecond.toFixed(1),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      Number.isNaN(r.busyP99) ? '-' : r.busyP99.toFixed(2),
      r.loopP99.toFixed(2),
      `${(r.passesPerSecond / rows[0]!.passesPerSecond).toFixed(1)}x`,
    ]);
    lines.push([idle.label, '-', '-', '-', '-', (idle.loop.percentile(99) / 1e6).toFixed(2), '-']);
    const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
    for (const line of [header, ...lines]) console.log(line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '));
    console.log(
      `\nloop busy/pass: how long the event loop was busy while one pass was built (performance.eventLoopUtilization; ` +
        `one pass at a time only), an upper bound on how long that pass blocked other requests.\n` +
        `loop delay: p99 of the time between firings of a ${LOOP_RESOLUTION_MS} ms timer (perf_hooks.monitorEventLoopDelay) ` +
        `while that builder ran; an idle loop reads about ${LOOP_RESOLUTION_MS} ms, a pass that blocks for 30 ms reads about 30 ms, ` +
        `and on a machine with more runnable threads than cores the idle row shows the scheduler's own share.`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function packageVersion(name: string): string {
  const file = path.join(process.cwd(), 'node_modules', name, 'package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
