// The real service as a user meets it: `tsx server.ts` (the custom server in front of the
// Next.js production build) in a child process, on a fresh DATA_DIR. For what only the built app
// does, such as server-rendered pages and their status codes. Needs `next build` first, as
// `npm test` runs it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export type RunningServer = { baseUrl: string; stop(): Promise<void> };

const ROOT = process.cwd();

/** TEST_SERVER_PORT when set (a machine that hands out port ranges), else a free port. */
async function choosePort(): Promise<number> {
  if (process.env.TEST_SERVER_PORT) return Number(process.env.TEST_SERVER_PORT);
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** `tsx server.ts` on a fresh DATA_DIR with only `env` (and what any server needs) in its environment. */
function spawnServer(port: number, dataDir: string, env: Record<string, string>): ChildProcess {
  return spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['server.ts'], {
    cwd: ROOT,
    // Only what the server needs: nothing from the test's own environment (DATABASE_URL…) leaks in.
    env: {
      NODE_ENV: 'production',
      PATH: process.env.PATH,
      PORT: String(port),
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_MINUTE: '0',
      NEXT_TELEMETRY_DISABLED: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  if (!existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
    throw new Error('No production build in .next: run `npm run build` first (`npm test` does).');
  }
  const port = await choosePort();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-server-'));
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawnServer(port, dataDir, env);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    }
    const healthy = await fetch(`${baseUrl}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return { baseUrl, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`server did not answer /health within 60 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Starts the server with settings it must refuse: how it exits, and what it wrote to stderr. */
export async function startServerExpectingRefusal(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-server-'));
  try {
    const child = spawnServer(await choosePort(), dataDir, env);
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)));
    clearTimeout(timer);
    return { code, stderr };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
