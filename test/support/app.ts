// The service under test, driven through its endpoint table and the same frame the server uses
// (lib/api), with a real database: PGlite in a fresh DATA_DIR, or a fresh database on the
// PostgreSQL server of TEST_DATABASE_URL, each a copy of the run's migrated template.
import { rmSync } from 'node:fs';
import { ENDPOINTS } from '@/lib/api/endpoints';
import { type Api, createApi } from '@/lib/api/frame';
import type { InitResult } from '@/lib/client';
import { loadConfig } from '@/lib/config';
import { createServices, type Services } from '@/lib/services';
import { createScratchDatabase, scratchDataDir, templateDatabase } from '@/scripts/support/scratch-database';
import { TestClock } from './clock';
import { type Layout, TestWallet } from './wallet';

export type Backend = 'pglite' | 'postgres';

/** The backends database tests run on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const BACKENDS: Backend[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

export type InitBody = InitResult;

export class TestApp {
  private api: Api;

  private constructor(
    public services: Services,
    public env: Record<string, string>,
    /** The settings of open() before the caller's own: what reopen() starts from. */
    private readonly baseEnv: Record<string, string>,
    /** The time the service goes by: advance it to see messages expire. Kept across restarts. */
    readonly clock: TestClock,
    private readonly dropStorage: () => Promise<void>,
  ) {
    this.api = createApi(services, ENDPOINTS);
  }

  static async open(backend: Backend, env: Record<string, string> = {}): Promise<TestApp> {
    const dataDir = scratchDataDir();
    const database = backend === 'postgres' ? await createScratchDatabase(undefined, templateDatabase()) : undefined;
    const baseEnv = {
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '0',
      // The RPC budget wide open (the local stand-in has no limit); its own tests set SOLANA_RPC_RPS.
      SOLANA_RPC_RPS: '1000',
      LOG_LEVEL: 'silent',
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    const fullEnv = { ...baseEnv, ...env };
    const clock = new TestClock();
    const services = await createServices(loadConfig(fullEnv), { clock });
    return new TestApp(services, fullEnv, baseEnv, clock, async () => {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
  }

  /** Closes the services and opens them again on the same storage, as a restart would. */
  async restart(env: Record<string, string> = {}): Promise<void> {
    await this.services.close();
    this.env = { ...this.env, ...env };
    this.services = await createServices(loadConfig(this.env), { clock: this.clock });
    this.api = createApi(this.services, ENDPOINTS);
  }

  /**
   * Closes the services and opens them on the same storage with `env` in place of the settings
   * of open() and of earlier restarts, and the clock back at the system's time: for the tests of
   * a file that share one database (each with its own wallets) but not their settings.
   */
  async reopen(env: Record<string, string> = {}): Promise<void> {
    await this.services.close();
    this.clock.reset();
    this.env = { ...this.baseEnv, ...env };
    this.services = await createServices(loadConfig(this.env), { clock: this.clock });
    this.api = createApi(this.services, ENDPOINTS);
  }

  async close(): Promise<void> {
    await this.services.close();
    await this.dropStorage();
  }

  /** Sends a request through the API, as from peer address `ip` (and with the server's request id). */
  fetch(pathAndQuery: string, init: RequestInit & { ip?: string; requestId?: string } = {}): Promise<Response> {
    const { ip = '203.0.113.7', requestId, ...request } = init;
    return this.api.handle(new Request(new URL(pathAndQuery, 'http://localhost:3000'), request), { peer: ip, requestId });
  }

  /**
   * A second instance on the same storage (PostgreSQL: its own pool, batcher and caches), as another
   * process sharing DATABASE_URL would be; closing it leaves the storage to this one.
   */
  async twin(): Promise<TestApp> {
    const services = await createServices(loadConfig(this.env), { clock: this.clock });
    return new TestApp(services, this.env, this.baseEnv, this.clock, async () => {});
  }

  async init(publicKey: string, ip?: string, program?: string): Promise<InitBody> {
    const query = `publicKey=${encodeURIComponent(publicKey)}${program ? `&program=${encodeURIComponent(program)}` : ''}`;
    const response = await this.fetch(`/api/v1/claim/init?${query}`, { ip });
    if (response.status !== 200) throw new Error(`init answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as InitBody;
  }

  postClaim(body: unknown, options: { ip?: string; headers?: Record<string, string> } = {}): Promise<Response> {
    return this.fetch('/api/v1/claim/wallet-pass', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...options.headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ip: options.ip,
    });
  }

  /** Signs in as an operator wallet (one of OPERATOR_WALLETS); resolves with the session's bearer token. */
  async operatorToken(wallet: TestWallet): Promise<string> {
    const init = await this.fetch(`/api/v1/operator/sessions/init?publicKey=${wallet.publicKey}`);
    const { message } = (await init.json()) as { message: string };
    const session = await this.fetch('/api/v1/operator/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message, signature: wallet.sign(message), publicKey: wallet.publicKey }),
    });
    if (session.status !== 201) throw new Error(`operator sign-in answered ${session.status}: ${await session.text()}`);
    return ((await session.json()) as { token: string }).token;
  }

  /** init, sign, claim: the whole flow for one wallet (of `program`, when given; the default otherwise). */
  async claimWith(wallet: TestWallet, options: { walletType?: string; layout?: Layout; program?: string } = {}): Promise<Response> {
    const { message } = await this.init(wallet.publicKey, undefined, options.program);
    return this.postClaim({
      message,
      signature: wallet.sign(message, options.layout),
      publicKey: wallet.publicKey,
      ...(options.walletType ? { walletType: options.walletType } : {}),
      ...(options.program ? { program: options.program } : {}),
    });
  }

  /** Creates a program through the operator API with an operator session's token (TestApp.operatorToken); resolves with the program. */
  async createProgram(operatorToken: string, program: Record<string, unknown>): Promise<Record<string, unknown>> {
    const response = await this.fetch('/api/v1/operator/programs', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${operatorToken}` },
      body: JSON.stringify(program),
    });
    if (response.status !== 201) throw new Error(`program creation answered ${response.status}: ${await response.text()}`);
    return (await response.json()) as Record<string, unknown>;
  }
}

export { TestWallet };
