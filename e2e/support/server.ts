// A real service for the browser tests: ServerProcess (the one way the service is started,
// scripts/support/server-process.ts) on a DATA_DIR kept across restarts, so the server-down test can
// stop it and start it again on the same data. The DATA_DIR starts as a copy of the run's template
// (data-dir-template.ts): its database is migrated and its keys made once per run, not per server.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ServerProcess } from '../../scripts/support/server-process';
import { DATA_DIR_TEMPLATE } from './data-dir-template';

export type ServerOptions = {
  port: number;
  /** Extra configuration (see the README's table), e.g. RATE_LIMIT_PER_MINUTE. */
  env?: Record<string, string>;
  /** Its clock can be moved forward (advanceClock): for expiry and rate-limit windows without waiting. */
  movableClock?: boolean;
};

const MOVABLE_CLOCK = pathToFileURL(path.join(__dirname, 'movable-clock.mjs')).href;

export class TestServer {
  readonly url: string;
  readonly dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-e2e-'));
  private readonly clockSocket: string;
  private process: ServerProcess | null = null;

  constructor(private readonly options: ServerOptions) {
    this.url = `http://127.0.0.1:${options.port}`;
    this.clockSocket = `${this.dataDir}.clock`;
    const template = process.env[DATA_DIR_TEMPLATE];
    if (template) cpSync(template, this.dataDir, { recursive: true });
  }

  /** Starts (or restarts, on the same DATA_DIR) and resolves once it listens. */
  async start(timeoutMs = 60_000): Promise<void> {
    if (this.process) throw new Error('already running');
    const clock: Record<string, string> = this.options.movableClock ? { E2E_CLOCK_SOCKET: this.clockSocket } : {};
    this.process = await ServerProcess.start(
      this.options.port,
      { PUBLIC_BASE_URL: this.url, DATA_DIR: this.dataDir, LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '0', ...this.options.env, ...clock },
      { timeoutMs, nodeArgs: this.options.movableClock ? ['--import', MOVABLE_CLOCK] : [] },
    );
  }

  /** Moves the server's clock `ms` forward; resolves once the server has taken the step. */
  advanceClock(ms: number): Promise<void> {
    if (!this.options.movableClock || !this.process) throw new Error('advanceClock needs a running server with movableClock');
    return new Promise((resolve, reject) => {
      const socket = connect(this.clockSocket);
      socket.once('error', reject);
      socket.once('connect', () => socket.write(String(ms)));
      socket.once('data', () => {
        socket.destroy();
        resolve();
      });
    });
  }

  /** Stops the server (SIGTERM: in-flight requests finish) and waits until it has exited. */
  async stop(): Promise<void> {
    const running = this.process;
    this.process = null;
    await running?.stop();
    rmSync(this.clockSocket, { force: true });
  }

  /** Stops the server and deletes its data. */
  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
