// The real service as a separate process: `tsx server.ts` on the production build (npm test builds
// it first), its own empty DATA_DIR, on a port from TEST_PORT_BASE (default 3500) upwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Ports for servers the tests start: TEST_PORT_BASE + offset. Each test file takes its own
 * offsets, so files running in parallel never collide.
 */
export const PORTS = {
  docs: 1,
  cliOpen: 2,
  cliRateLimited: 3,
  notTheApi: 4,
  /** Nothing listens here: the "service unreachable" case. */
  closed: 49,
} as const;

export function testPort(name: keyof typeof PORTS): number {
  return Number(process.env.TEST_PORT_BASE ?? 3500) + PORTS[name];
}

export type RunningServer = { url: string; port: number; dataDir: string; stop(): Promise<void>; output(): string };

export async function startServer(port: number, env: Record<string, string> = {}): Promise<RunningServer> {
  if (!existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
    throw new Error('These tests run the production server: build it first with `npm run build` (npm test does).');
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-server-'));
  const url = `http://127.0.0.1:${port}`;
  // Only what the process needs from the environment: never a DATABASE_URL or REDIS_URL meant for something else.
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? tmpdir(),
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      PORT: String(port),
      PUBLIC_BASE_URL: url,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));

  const stop = async () => {
    await stopProcess(child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(url, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, dataDir, stop, output: () => output };
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the server stopped (${child.exitCode ?? child.signalCode}) before answering:\n${output()}`);
    }
    try {
      const response = await fetch(`${url}/health`);
      if (response.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the server did not answer /health within 90 s:\n${output()}`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}
