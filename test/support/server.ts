// The built service on a free port, for tests that need real sockets: peer addresses, Host
// headers, streamed bodies, logs, signals. A thin layer over ServerProcess (./server-process.ts).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, ServerProcess } from '../../scripts/support/server-process';

/** The project root: where server.ts and the build are. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export type RunningServer = ServerProcess;

export { freePort };

/**
 * Starts the server on a free port, its own DATA_DIR unless env names one, PUBLIC_BASE_URL on
 * that port and rate limiting off unless env says otherwise. Stop it with dispose().
 */
export async function startServer(env: Record<string, string> = {}): Promise<RunningServer> {
  const port = await freePort();
  return ServerProcess.start(port, { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '0', ...env });
}

/** Starts the server with settings it must refuse: resolves with its exit code and stderr. */
export async function startServerExpectingRefusal(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  // An empty DATA_DIR: a refused start never reaches the database, so it needs no copy of the template.
  const server = ServerProcess.launch(await freePort(), { DATA_DIR: mkdtempSync(path.join(tmpdir(), 'wpc-refused-')), ...env });
  const timer = setTimeout(() => server.signal('SIGKILL'), 60_000);
  const { code } = await server.exited;
  clearTimeout(timer);
  server.removeDataDir();
  return { code, stderr: server.otherOutput.join('') };
}
