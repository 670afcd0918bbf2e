// The service as a real process: `server.ts` on the production build (`next build` first, as
// `npm test` does), with its own environment and port, its JSON log lines kept for assertions.
// The one way tests, the end-to-end servers and the benchmarks start the service.
// Started as `node --import tsx server.ts` rather than through the `tsx` wrapper, so that the pid
// we signal (SIGTERM, SIGKILL, SIGSTOP) is the server itself and not a parent relaying to it.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { scratchDataDir } from './scratch-database';

/** The project root: vitest and npm scripts run from it. */
const ROOT = process.cwd();

export type LogLine = Record<string, unknown> & { event?: string; msg?: string; level?: number };

/**
 * How the service runs: `server` is production (`server.ts`: the API straight from the table, the
 * pages through Next.js); `next-start` is Next.js alone, serving the API through its route
 * handlers (app/**\/route.ts) from the same table.
 */
export type Runner = 'server' | 'next-start';

type LaunchOptions = { runner?: Runner; script?: string; logFile?: string; nodeArgs?: string[] };

const NEXT_BIN = path.join('node_modules', 'next', 'dist', 'bin', 'next');

function commandOf(port: number, options: LaunchOptions): string[] {
  switch (options.runner ?? 'server') {
    case 'server':
      return ['--import', 'tsx', options.script ?? 'server.ts'];
    case 'next-start':
      return [NEXT_BIN, 'start', '--port', String(port), '--hostname', '127.0.0.1'];
  }
}

export class ServerProcess {
  readonly logs: LogLine[] = [];
  /** stderr and any stdout line that is not JSON. */
  readonly otherOutput: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exitCode: number | null | undefined;

  private constructor(
    readonly child: ChildProcess,
    readonly port: number,
    readonly env: Record<string, string>,
    /** True when start() made the DATA_DIR (env named none): dispose() deletes it. */
    private readonly ownsDataDir: boolean,
    private readonly logFile?: string,
  ) {
    // 'close', not 'exit': it comes once the output has been read to the end, so the logs are whole.
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        this.exitCode = code;
        resolve({ code, signal });
      });
    });
    let pending = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) this.keepLine(line);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => this.otherOutput.push(chunk));
  }

  get pid(): number {
    return this.child.pid!;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Starts server.ts (or `options.script`) on `port` and resolves once it logs "listening". A
   * DATA_DIR of its own is made unless `env` names one. With `options.logFile`, the log goes to
   * that file instead of this process's memory (a benchmark's hundreds of thousands of lines).
   */
  static async start(port: number, env: Record<string, string> = {}, options: LaunchOptions & { timeoutMs?: number } = {}): Promise<ServerProcess> {
    assertBuilt();
    if (
      await acceptsConnections(port, 0).then(
        () => true,
        () => false,
      )
    ) {
      throw new Error(`port ${port} is already in use (a server left over from an earlier run?)`);
    }
    const server = ServerProcess.launch(port, env, options);
    const timeoutMs = options.timeoutMs ?? 60_000;
    await Promise.race([
      // The server listens only once it is ready; its "listening" line is not logged below LOG_LEVEL=info.
      acceptsConnections(port, timeoutMs),
      server.exited.then(({ code, signal }) => {
        throw new Error(`server on port ${port} exited (${code ?? signal}) before listening:\n${server.output()}`);
      }),
    ]).catch((error: unknown) => {
      server.signal('SIGKILL'); // never leave a half-started server behind
      throw error;
    });
    return server;
  }

  /**
   * Spawns the process without waiting for it to listen: for settings it must refuse, whose
   * exit code and output are then in `exited` and `otherOutput`.
   */
  static launch(port: number, env: Record<string, string> = {}, options: LaunchOptions = {}): ServerProcess {
    const fullEnv: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      PORT: String(port),
      DATA_DIR: env.DATA_DIR ?? scratchDataDir('wpc-server-'),
      LOG_LEVEL: 'info',
      ...env,
    };
    const stdout = options.logFile ? openSync(options.logFile, 'a') : 'pipe';
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...commandOf(port, options)], {
      cwd: ROOT,
      env: fullEnv as NodeJS.ProcessEnv,
      stdio: ['ignore', stdout, 'pipe'],
    });
    if (typeof stdout === 'number') closeSync(stdout);
    return new ServerProcess(child, port, fullEnv, env.DATA_DIR === undefined, options.logFile);
  }

  /** Resolves with the first log line (already written or to come) that matches. */
  async waitForLog(match: (line: LogLine) => boolean, timeoutMs = 10_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.logFile) this.readLogFile();
      const found = this.logs.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no matching log line within ${timeoutMs} ms:\n${this.output()}`);
      await sleep(25);
    }
  }

  /** Loads the log file's lines (only while waiting for start-up: it is not meant to grow large then). */
  private readLogFile(): void {
    this.logs.length = 0;
    this.otherOutput.length = 0;
    for (const line of readFileSync(this.logFile!, 'utf8').split('\n')) this.keepLine(line);
  }

  private keepLine(line: string): void {
    if (!line.trim()) return;
    try {
      this.logs.push(JSON.parse(line) as LogLine);
    } catch {
      this.otherOutput.push(line);
    }
  }

  /** Everything the process wrote: its log lines (as JSON) and any other output. */
  text(): string {
    return [...this.logs.map((line) => JSON.stringify(line)), ...this.otherOutput].join('\n');
  }

  /** The end of what the process wrote, for failure messages. */
  output(): string {
    return this.text().slice(-8000);
  }

  fetch(pathAndQuery: string, init?: RequestInit): Promise<Response> {
    return fetch(`${this.baseUrl}${pathAndQuery}`, init);
  }

  /** Resident set size in bytes: from /proc on Linux, from ps elsewhere. */
  rssBytes(): number {
    const kb = existsSync(`/proc/${this.pid}/status`)
      ? Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${this.pid}/status`, 'utf8'))?.[1])
      : Number(execFileSync('ps', ['-o', 'rss=', '-p', String(this.pid)], { encoding: 'utf8' }).trim());
    return kb * 1024;
  }

  /** CPU time the process has used so far (user + system), in milliseconds, from /proc (Linux). */
  cpuMs(): number {
    return processCpuMs(this.pid);
  }

  signal(signal: NodeJS.Signals): void {
    if (this.exitCode === undefined) this.child.kill(signal);
  }

  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`; removes its own DATA_DIR. */
  async stop(graceMs = 12_000): Promise<void> {
    if (this.exitCode === undefined) {
      this.signal('SIGCONT'); // in case a test left it stopped
      this.signal('SIGTERM');
      const timer = setTimeout(() => this.signal('SIGKILL'), graceMs);
      await this.exited;
      clearTimeout(timer);
    }
  }

  removeDataDir(): void {
    rmSync(this.env.DATA_DIR!, { recursive: true, force: true });
  }

  /** stop(), then delete the DATA_DIR if start() made it. */
  async dispose(): Promise<void> {
    await this.stop();
    if (this.ownsDataDir) this.removeDataDir();
  }
}

function assertBuilt(): void {
  if (!existsSync(path.join(ROOT, 'server.ts'))) throw new Error(`run from the project root, not ${ROOT}`);
  if (!existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
    throw new Error('No production build in .next: run `npm run build` first (`npm test` does).');
  }
}

/** CPU time process `pid` has used so far (user + system), in milliseconds; NaN off Linux. */
export function processCpuMs(pid: number | undefined): number {
  if (!existsSync(`/proc/${pid}/stat`)) return Number.NaN; // not Linux
  return cpuMsOf(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/**
 * CPU time of every process named `postgres` on this machine, in ms: a local PostgreSQL server's
 * share of a benchmark (backends that exit during it take their share with them).
 */
export function postgresCpuMs(): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.includes('(postgres)')) total += cpuMsOf(stat);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return total;
}

/** utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks (100 per second on Linux), as ms. */
function cpuMsOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Resolves once something accepts TCP connections on 127.0.0.1:`port`. */
export async function acceptsConnections(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const accepted = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (accepted) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`);
    await sleep(50);
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value other than undefined, or throws after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`);
    await sleep(100);
  }
}

/** A TCP port nothing listens on now, on 127.0.0.1 (for tests, e2e servers and the scripts). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
