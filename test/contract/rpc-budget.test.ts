// One RPC budget and frugal rounds (issue 23, items 4 and 5): a re-check round reads balances from
// associated token accounts first (100 a getMultipleAccounts call, on Token and Token-2022) and
// asks getTokenAccountsByOwner only of a wallet short there; every request of the instance is paced
// within SOLANA_RPC_RPS in any one-second window, claims before rounds; a provider's 429 is waited
// out (Retry-After) and never turns into not_eligible. Against the local Solana JSON-RPC stand-in
// (litesvm, real account bytes), on PostgreSQL (the rounds' SQL, and no WebAssembly database
// sharing the event loop with the pacing being measured).
import { randomBytes } from 'node:crypto';
import type { Address } from '@solana/kit';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eligibilityStatus, runRecheckRound } from '@/lib/eligibility/recheck';
import { PACING_SLACK } from '@/lib/eligibility/rpc-budget';
import { insertPasses } from '../../scripts/support/seed-passes';
import { missingEnv, requireService } from '../scale/support/requirements';
import { TestApp, TestWallet } from '../support/app';
import { SolanaRpcStandIn } from '../support/stand-ins/solana-rpc';

/** A wallet address nobody signs for (32 random bytes): the holders a round reads. */
const randomAddress = () => bs58.encode(randomBytes(32)) as Address;

const RPS = 50;
const INTERVAL_MS = (1000 / RPS) * PACING_SLACK;

describe('one RPC budget and frugal rounds', () => {
  requireService('PostgreSQL', missingEnv('TEST_DATABASE_URL', 'postgres://127.0.0.1:5432/test'), 'The RPC budget tests');
  let rpc: SolanaRpcStandIn;
  let app: TestApp;
  let mintA: Address; // under Token: at least 5
  let mintB: Address; // under Token-2022: at least 1
  const operator = new TestWallet();
  const serialOf = new Map<string, string>();

  beforeAll(async () => {
    rpc = await SolanaRpcStandIn.start();
    // The stand-in answers 429 past RPS requests in any one-second window, as a provider would.
    rpc.limit = { perSecond: RPS, retryAfterSeconds: 1 };
    mintA = await rpc.createMint({ program: 'token' });
    mintB = await rpc.createMint({ program: 'token-2022' });
    app = await TestApp.open('postgres', {
      CLAIM_POLICY: JSON.stringify({ all: [{ token: { mint: mintA, minAmount: '5' } }, { token: { mint: mintB, minAmount: '1' } }] }),
      SOLANA_RPC_URL: rpc.url,
      SOLANA_RPC_RPS: String(RPS),
      SOLANA_RPC_TIMEOUT_MS: '2500',
      ELIGIBILITY_RECHECK_SECONDS: '0', // rounds are run by the test
      OPERATOR_WALLETS: operator.publicKey,
    });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await rpc?.close();
  });

  /** Passes for `wallets`, written straight into the table (as the benchmark does). */
  async function passesFor(wallets: string[]): Promise<void> {
    const serials = await insertPasses(app.services.store.sql, wallets);
    for (const [index, wallet] of wallets.entries()) serialOf.set(wallet, serials[index]!);
  }

  async function statusOf(wallet: string): Promise<string> {
    const [row] = await app.services.store.sql.query<{ status: string }>('select status from passes where serial_number = $1', [serialOf.get(wallet)]);
    return row!.status;
  }

  const sinceCount = (from: number, method: string) => rpc.arrivals.slice(from).filter((arrival) => arrival.method === method && !arrival.throttled).length;

  it('a round over 150 holders: associated accounts first, 100 a call per mint; only wallets short there looked up; exactly the sellers voided', async () => {
    const random = randomAddress;
    const keepers = Array.from({ length: 125 }, random);
    const sellers = Array.from({ length: 10 }, () => new TestWallet());
    const outside = Array.from({ length: 10 }, random); // mint A only in another account
    const split = Array.from({ length: 5 }, random); // 2 in the associated account, 3 in another
    for (const wallet of [...keepers, ...sellers.map((seller) => seller.publicKey), ...outside, ...split]) await rpc.putTokenAccount(mintB, wallet, 1n);
    for (const wallet of keepers) await rpc.putTokenAccount(mintA, wallet, 5n);
    for (const seller of sellers) await rpc.putTokenAccount(mintA, seller.publicKey, 5n);
    for (const wallet of outside) await rpc.mintTo(mintA, wallet, 7n);
    for (const wallet of split) {
      await rpc.putTokenAccount(mintA, wallet, 2n);
      await rpc.mintTo(mintA, wallet, 3n);
    }
    const all = [...keepers, ...sellers.map((seller) => seller.publicKey), ...outside, ...split];
    await passesFor(all);

    // The sellers sell since their claim: a real transfer out of their associated account.
    for (const seller of sellers) {
      await rpc.transfer(await rpc.associatedAddress(mintA, seller.publicKey), seller.keyPair.secretKey, random(), 5n);
    }

    const from = rpc.arrivals.length;
    const outcome = await runRecheckRound(app.services, { intervalSeconds: 0 });
    expect(outcome).toMatchObject({ ran: true, round: { total: 150, checked: 150, voided: 10, restored: 0, error: null } });
    // ceil(150 / 100) pages × 2 mints (one under Token, one under Token-2022).
    expect(sinceCount(from, 'getMultipleAccounts')).toBe(4);
    // Each mint's program found once for the round.
    expect(sinceCount(from, 'getAccountInfo')).toBe(2);
    // One look for each wallet short in its associated account: 10 sellers, 10 outside, 5 split.
    expect(sinceCount(from, 'getTokenAccountsByOwner')).toBe(25);
    expect(outcome.ran && outcome.round.requests).toBe(31);
    for (const seller of sellers) expect(await statusOf(seller.publicKey)).toBe('voided');
    for (const wallet of [...keepers, ...outside, ...split]) expect(await statusOf(wallet)).toBe('active');
    expect(rpc.throttled).toBe(0);

    // The operator endpoint shows the round's progress and its requests.
    const token = await app.operatorToken(operator);
    const answer = await app.fetch('/api/v1/operator/eligibility', { headers: { authorization: `Bearer ${token}` } });
    expect(((await answer.json()) as { lastRound: unknown }).lastRound).toMatchObject({ checked: 150, total: 150, requests: 31, voided: 10 });
  }, 120_000);

  it('a long round stays within SOLANA_RPC_RPS in every one-second window, evenly paced, never answered 429; a claim goes before it', async () => {
    // 100 more holders of mint A, none in the associated account: one getTokenAccountsByOwner each.
    const holders = Array.from({ length: 100 }, randomAddress);
    for (const wallet of holders) {
      await rpc.putTokenAccount(mintB, wallet, 1n);
      await rpc.putTokenAccount(mintA, wallet, 9n, randomAddress());
    }
    await passesFor(holders);
    const claimant = new TestWallet();
    await rpc.putTokenAccount(mintA, claimant.publicKey, 5n);
    await rpc.putTokenAccount(mintB, claimant.publicKey, 1n);

    const from = rpc.arrivals.length;
    const round = runRecheckRound(app.services, { intervalSeconds: 0 });
    // Once the round is well under way (its lanes waiting for turns), a claim checks its wallet.
    while (rpc.arrivals.length - from < 30) await new Promise((resolve) => setTimeout(resolve, 5));
    const claimFrom = rpc.arrivals.length;
    const started = performance.now();
    const init = await app.fetch(`/api/v1/claim/init?publicKey=${claimant.publicKey}`);
    const initMs = performance.now() - started;
    expect(init.status).toBe(200);
    const outcome = await round;
    expect(outcome).toMatchObject({ ran: true, round: { checked: 250, voided: 0, error: null } });

    // The claim's requests (both mints, at once) came before the round's waiting ones: at most two
    // of the round's arrived between the claim's asking and its answers.
    const claimArrivals = rpc.arrivals.map((arrival, index) => ({ ...arrival, index })).filter((arrival) => arrival.first === claimant.publicKey);
    expect(claimArrivals).toHaveLength(2);
    const roundsBetween = rpc.arrivals.slice(claimFrom, claimArrivals.at(-1)!.index).filter((arrival) => arrival.first !== claimant.publicKey).length;
    expect(roundsBetween).toBeLessThanOrEqual(2);
    // Answered within a few pacing intervals, not behind the round's ~130 requests (~2.7 s).
    expect(initMs).toBeLessThan(20 * INTERVAL_MS);

    // Every one-second window at the provider: at most RPS; no 429 ever; no bursts (any 100 ms
    // holds about 100 / INTERVAL_MS requests, never the round's 16 lanes at once).
    const requests = rpc.arrivals.length - from;
    expect(requests).toBeGreaterThan(120);
    expect(rpc.busiestSecond(from)).toBeLessThanOrEqual(RPS);
    expect(rpc.throttled).toBe(0);
    const times = rpc.arrivals.slice(from).map((arrival) => arrival.at);
    let burst = 0;
    for (let end = 0, start = 0; end < times.length; end++) {
      while (times[end]! - times[start]! >= 100) start++;
      burst = Math.max(burst, end - start + 1);
    }
    expect(burst).toBeLessThanOrEqual(Math.ceil(100 / INTERVAL_MS) + 2);
    // And paced, not idle: the round took about requests × interval.
    const span = times.at(-1)! - times[0]!;
    expect(span).toBeGreaterThanOrEqual((requests - 1) * INTERVAL_MS * 0.9);

    const status = await eligibilityStatus(app.services);
    expect(status.lastRound).toMatchObject({ checked: 250, total: 250 });
    expect(status.lastRound!.requests).toBe(requests - 2);
  }, 120_000);

  it('a 429 with Retry-After is waited out and the claim goes through; one past the deadline is 503, never not_eligible', async () => {
    const wallet = new TestWallet();
    await rpc.putTokenAccount(mintA, wallet.publicKey, 5n);
    await rpc.putTokenAccount(mintB, wallet.publicKey, 1n);
    const from = rpc.arrivals.length;
    rpc.tooMany(1, 1);
    const response = await app.claimWith(wallet);
    expect(response.status).toBe(201);
    const arrivals = rpc.arrivals.slice(from);
    expect(arrivals[0]!.throttled).toBe(true);
    // Nothing was sent until the Retry-After had passed.
    expect(arrivals[1]!.at - arrivals[0]!.at).toBeGreaterThanOrEqual(990);

    // Without Retry-After: backed off, tried again, let in.
    const other = new TestWallet();
    await rpc.putTokenAccount(mintA, other.publicKey, 5n);
    await rpc.putTokenAccount(mintB, other.publicKey, 1n);
    rpc.tooMany(1);
    expect((await app.fetch(`/api/v1/claim/init?publicKey=${other.publicKey}`)).status).toBe(200);

    // A provider that asks for longer than the check's deadline (2.5 s): 503, as an outage.
    const late = new TestWallet();
    rpc.tooMany(1, 30);
    const refused = await app.fetch(`/api/v1/claim/init?publicKey=${late.publicKey}`);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { code: string }).code).toBe('service_unavailable');
  }, 60_000);
});
