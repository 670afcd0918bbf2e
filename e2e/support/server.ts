// A real service for the browser tests: ServerProcess (the one way the
// service is started, scripts/support/server-process.ts) on a fixed port and a DATA_DIR kept across
// restarts, so the server-down test can stop it and start it again on the same data.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ServerProcess } from '../../scripts/support/server-process';

export type ServerOptions = {
  port: number;
  /** Extra configuration (see the README's table), e.g. RATE_LIMIT_PER_MINUTE. */
  env?: Record<string, string>;
};

export class TestServer {
  readonly url: string;
  readonly dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-e2e-'));
  private process: ServerProcess | null = null;

  constructor(private readonly options: ServerOptions) {
    this.url = `http://127.0.0.1:${options.port}`;
  }

  /** Starts (or restarts, on the same DATA_DIR) and resolves once it listens. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.process) throw new Error('already running');
    this.process = await ServerProcess.start(
      this.options.port,
      { PUBLIC_BASE_URL: this.url, DATA_DIR: this.dataDir, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', ...this.options.env },
      { timeoutMs },
    );
  }

  /** Stops the server (SIGTERM: in-flight requests finish) and waits until it has exited. */
  async stop(): Promise<void> {
    const running = this.process;
    this.process = null;
    await running?.stop();
  }

  /** Stops the server and deletes its data. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
