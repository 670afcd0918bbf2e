// The service under test, driven through its real route handlers with a real database: PGlite in
// a fresh DATA_DIR, or a fresh database on the PostgreSQL server of TEST_DATABASE_URL.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { InitResult } from '@/lib/client';
import { loadConfig } from '@/lib/config';
import { withDefaultUser } from '@/lib/db/client';
import { PEER_ADDRESS_HEADER } from '@/lib/http/client-ip';
import { createServices, installServices, type Services } from '@/lib/services';
import { TestWallet, type Layout } from './wallet';

export type Backend = 'pglite' | 'postgres';

/** The backends database tests run on: PGlite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const BACKENDS: Backend[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

type RouteModule = Record<string, ((request: Request) => Promise<Response> | Response) | unknown>;
const ROUTES: Record<string, () => Promise<RouteModule>> = {
  '/health': () => import('@/app/health/route'),
  '/api/v1/claim/init': () => import('@/app/api/v1/claim/init/route'),
  '/api/v1/claim/wallet-pass': () => import('@/app/api/v1/claim/wallet-pass/route'),
  '/download': () => import('@/app/download/route'),
  '/api/v1/openapi.json': () => import('@/app/api/v1/openapi.json/route'),
  '/api/v1/passes/verify': () => import('@/app/api/v1/passes/verify/route'),
  '/api/v1/passes/google': () => import('@/app/api/v1/passes/google/route'),
  '/verify': () => import('@/app/verify/route'),
};

export type InitBody = InitResult;

export class TestApp {
  private constructor(
    public services: Services,
    public env: Record<string, string>,
    private readonly dropStorage: () => Promise<void>,
  ) {}

  static async open(backend: Backend, env: Record<string, string> = {}): Promise<TestApp> {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-test-'));
    const database = backend === 'postgres' ? await createScratchDatabase() : undefined;
    const fullEnv = {
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'silent',
      ...(database ? { DATABASE_URL: database.url } : {}),
      ...env,
    };
    const services = await installServices(createServices(loadConfig(fullEnv)));
    return new TestApp(services, fullEnv, async () => {
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
  }

  /** Closes the services and opens them again on the same storage, as a restart would. */
  async restart(env: Record<string, string> = {}): Promise<void> {
    await this.services.close();
    this.env = { ...this.env, ...env };
    this.services = await installServices(createServices(loadConfig(this.env)));
  }

  async close(): Promise<void> {
    await this.services.close();
    await this.dropStorage();
  }

  /** Sends a request to the route handler for its path, as from peer address `ip`. */
  async fetch(pathAndQuery: string, init: RequestInit & { ip?: string } = {}): Promise<Response> {
    const url = new URL(pathAndQuery, 'http://localhost:3000');
    const load = ROUTES[url.pathname];
    if (!load) throw new Error(`no route for ${url.pathname}`);
    const module = await load();
    const method = (init.method ?? 'GET').toUpperCase();
    const handler = module[method];
    if (typeof handler !== 'function') return new Response(null, { status: 405 });
    const headers = new Headers(init.headers);
    headers.set(PEER_ADDRESS_HEADER, init.ip ?? '203.0.113.7');
    return handler(new Request(url, { ...init, headers }));
  }

  async init(publicKey: string, ip?: string): Promise<InitBody> {
    const response = await this.fetch(`/api/v1/claim/init?publicKey=${encodeURIComponent(publicKey)}`, { ip });
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

  /** init, sign, claim: the whole flow for one wallet. */
  async claimWith(wallet: TestWallet, options: { walletType?: string; layout?: Layout } = {}): Promise<Response> {
    const { message } = await this.init(wallet.publicKey);
    return this.postClaim({
      message,
      signature: wallet.sign(message, options.layout),
      publicKey: wallet.publicKey,
      ...(options.walletType ? { walletType: options.walletType } : {}),
    });
  }
}

/** A new, empty database on the TEST_DATABASE_URL server (or `adminUrl`'s), dropped again after the test. */
export async function createScratchDatabase(
  adminUrl: string = process.env.TEST_DATABASE_URL!,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `wpc_test_${randomBytes(6).toString('hex')}`;
  await asAdmin(adminUrl, `create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => asAdmin(adminUrl, `drop database if exists ${name} with (force)`),
  };
}

async function asAdmin(adminUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: withDefaultUser(adminUrl) });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

export { TestWallet };
