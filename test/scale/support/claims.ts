// The claim flow over real HTTP against a running server process.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { ServerProcess } from '../../../scripts/support/server-process';
import { TestWallet } from '../../support/wallet';

export type ClaimBody = { message: string; signature: string; publicKey: string; walletType?: string };

/** Headers that make a request come from `ip` for a server started with TRUST_PROXY=1. */
export const fromIp = (ip: string): Record<string, string> => ({ 'x-forwarded-for': ip });

let nextIp = randomBytes(1)[0]!;
/**
 * A documentation-range address not handed out before by this process (254 of them, from a random
 * start), so each test has its own rate-limit budget: two random picks would share one now and then.
 */
export const randomIp = () => `198.51.100.${1 + (nextIp++ % 254)}`;

export async function issue(server: ServerProcess, wallet: TestWallet, headers: Record<string, string> = {}): Promise<string> {
  const response = await server.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`, { headers });
  if (response.status !== 200) throw new Error(`init on :${server.port} answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { message: string }).message;
}

/** Every wallet that signed a claim here, by public key: a test can sign again for it later. */
export const walletsByPublicKey = new Map<string, TestWallet>();

/** A signed claim body for a message issued by `server`. */
export async function signedClaim(server: ServerProcess, wallet = new TestWallet(), headers: Record<string, string> = {}): Promise<ClaimBody> {
  walletsByPublicKey.set(wallet.publicKey, wallet);
  const message = await issue(server, wallet, headers);
  return { message, signature: wallet.sign(message), publicKey: wallet.publicKey };
}

export function postClaim(server: ServerProcess, body: ClaimBody, headers: Record<string, string> = {}): Promise<Response> {
  return server.fetch('/api/v1/claim/wallet-pass', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** How many times each value occurs. */
export function tally<T>(values: T[]): Map<T, number> {
  const counts = new Map<T, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

/** A Redis key prefix of this test run's own, and a function that deletes its keys afterwards. */
export function redisPrefix(redisUrl: string): { prefix: string; cleanUp: () => Promise<void> } {
  const prefix = `wpc-test-${randomBytes(6).toString('hex')}`;
  return {
    prefix,
    cleanUp: async () => {
      const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}

export { TestWallet };

export type ClaimOutcome = {
  publicKey: string;
  status: number | 'network-error';
  code?: string;
  downloadUrl?: string;
  /** From sending the request to reading the whole response. */
  ms: number;
};

/**
 * Posts every body once, `concurrency` at a time (round-robin over `servers`), and records what
 * each client saw. A refused or cut connection is an outcome too, not a test failure.
 */
export async function claimBurst(servers: ServerProcess[], bodies: ClaimBody[], concurrency: number): Promise<ClaimOutcome[]> {
  const outcomes: ClaimOutcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const index = next++;
      const body = bodies[index]!;
      const started = performance.now();
      const ms = () => performance.now() - started;
      try {
        const response = await postClaim(servers[index % servers.length]!, body);
        const json = (await response.json()) as { code?: string; downloadUrl?: string };
        outcomes.push({ publicKey: body.publicKey, status: response.status, code: json.code, downloadUrl: json.downloadUrl, ms: ms() });
      } catch {
        outcomes.push({ publicKey: body.publicKey, status: 'network-error', ms: ms() });
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return outcomes;
}

/** `count` signed claim bodies, each from a wallet of its own, issued by `server`. */
export async function signedClaims(server: ServerProcess, count: number): Promise<ClaimBody[]> {
  const bodies: ClaimBody[] = [];
  for (let i = 0; i < count; i += 20) {
    bodies.push(...(await Promise.all(Array.from({ length: Math.min(20, count - i) }, () => signedClaim(server)))));
  }
  return bodies;
}
