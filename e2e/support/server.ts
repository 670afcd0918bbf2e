// Starts the real service (tsx server.ts on the production build) on a port with a fresh DATA_DIR,
// waits until /health answers, and stops it: for Playwright's webServer (via serve.ts), for the
// page-weight script, and for the test that stops a server mid-claim.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The repository root: npm scripts and Playwright run from it. */
const ROOT = process.cwd();
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

export type ServerOptions = {
  port: number;
  /** Extra configuration (see the README's table), e.g. RATE_LIMIT_PER_MINUTE. */
  env?: Record<string, string>;
  /** Where the server's stdout/stderr go; default: discarded unless it fails to start. */
  log?: (line: string) => void;
};

export class TestServer {
  readonly url: string;
  readonly dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-e2e-'));
  private child: ChildProcess | null = null;

  constructor(private readonly options: ServerOptions) {
    this.url = `http://127.0.0.1:${options.port}`;
  }

  /** Starts (or restarts, on the same DATA_DIR) and resolves once /health says healthy. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.child) throw new Error('already running');
    const output: string[] = [];
    const child = spawn(TSX, ['server.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        NODE_ENV: 'production',
        NEXT_TELEMETRY_DISABLED: '1',
        PORT: String(this.options.port),
        PUBLIC_BASE_URL: this.url,
        DATA_DIR: this.dataDir,
        LOG_LEVEL: 'warn',
        RATE_LIMIT_PER_MINUTE: '0',
        ...this.options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const collect = (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean)) {
        output.push(line);
        this.options.log?.(line);
      }
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`server on port ${this.options.port} exited (${code}):\n${output.join('\n')}`))),
    );
    const deadline = Date.now() + timeoutMs;
    const healthy = (async () => {
      while (Date.now() < deadline) {
        try {
          const response = await fetch(`${this.url}/health`);
          if (response.ok) return;
        } catch {
          // not listening yet
        }
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      throw new Error(`server on port ${this.options.port} not healthy after ${timeoutMs} ms:\n${output.join('\n')}`);
    })();
    await Promise.race([healthy, exited]);
    exited.catch(() => undefined); // a later exit (stop()) is expected
  }

  /** Stops the server (SIGTERM: in-flight requests finish) and waits until the port is closed. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  /** Stops the server and deletes its data. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
