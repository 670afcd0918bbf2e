// Who may claim (CLAIM_POLICY): every rule and combination, checked at init and again at claim,
// against a local Solana JSON-RPC over account bytes made by the real SPL Token and Token-2022
// programs (litesvm) and Metaplex's metadata codec.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '@/lib/config';
import { createChainReader } from '@/lib/eligibility/chain';
import { EligibilityChecker } from '@/lib/eligibility/checker';
import { TestApp, TestWallet } from '../support/app';
import { SolanaRpcStandIn } from '../support/stand-ins/solana-rpc';

type ProblemBody = { code: string; status: number; detail: string };

describe('CLAIM_POLICY', () => {
  let rpc: SolanaRpcStandIn;
  let dir: string;
  let shared: TestApp;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    rpc = await SolanaRpcStandIn.start();
    dir = mkdtempSync(path.join(tmpdir(), 'wpc-eligibility-'));
    // One service for the rule tests (opening a database per test costs seconds on this machine);
    // each test gives it its policy the way start-up does, from the variables' text.
    shared = await TestApp.open('pglite', { CLAIM_POLICY: JSON.stringify({ allow: [new TestWallet().publicKey] }), SOLANA_RPC_URL: rpc.url });
  });
  afterEach(async () => {
    rpc.das = true;
    rpc.outage = null;
    rpc.rewrite = null;
    rpc.drip = null;
    await Promise.all(apps.splice(0).map((app) => app.close()));
  });
  afterAll(async () => {
    await shared.close();
    await rpc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(policy: unknown, env: Record<string, string> = {}): Promise<TestApp> {
    const config = loadConfig({ ...shared.env, CLAIM_POLICY: JSON.stringify(policy), ...env });
    shared.services.eligibility = new EligibilityChecker(
      config.claimPolicy!,
      createChainReader(config.solanaRpcUrl!, { maxBytes: config.solanaRpcMaxBytes, rps: config.solanaRpcRps }),
      {
        cacheSeconds: config.eligibilityCacheSeconds,
        timeoutMs: config.solanaRpcTimeoutMs,
      },
    );
    return shared;
  }

  async function initProblem(app: TestApp, wallet: TestWallet): Promise<ProblemBody & { httpStatus: number }> {
    const response = await app.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    return { ...((await response.json()) as ProblemBody), httpStatus: response.status };
  }

  async function storedMessages(app: TestApp, publicKey: string): Promise<number> {
    // Read straight from the service's database: nothing may be stored for a refused wallet.
    const database = (app.services.store as unknown as { database: { query<R>(sql: string, params: unknown[]): Promise<R[]> } }).database;
    const [row] = await database.query<{ n: number }>('select count(*)::int as n from sign_in_messages where public_key = $1', [publicKey]);
    return row!.n;
  }

  async function storedPasses(app: TestApp, publicKey: string): Promise<number> {
    const database = (app.services.store as unknown as { database: { query<R>(sql: string, params: unknown[]): Promise<R[]> } }).database;
    const [row] = await database.query<{ n: number }>('select count(*)::int as n from passes where public_key = $1', [publicKey]);
    return row!.n;
  }

  describe('allow lists', () => {
    it('an invited wallet claims; another gets 403 not_eligible at init, the list never shown, nothing stored', async () => {
      const invited = new TestWallet();
      const other = new TestWallet();
      // Through the variables at start-up, as an operator sets it.
      const app = await TestApp.open('pglite', { CLAIM_POLICY: JSON.stringify({ allow: [invited.publicKey] }) });
      apps.push(app);

      expect((await app.claimWith(invited)).status).toBe(201);
      const problem = await initProblem(app, other);
      expect(problem).toMatchObject({ httpStatus: 403, status: 403, code: 'not_eligible' });
      expect(problem.detail).toBe('This wallet cannot claim a pass yet: to be eligible, it needs to be on the list of wallets invited to claim.');
      expect(problem.detail).not.toContain(invited.publicKey);
      expect(await storedMessages(app, other.publicKey)).toBe(0);
    });

    it('allowFile: one address per line, with comments', async () => {
      const invited = new TestWallet();
      const file = path.join(dir, 'allow.txt');
      writeFileSync(file, `# guests\n\n${invited.publicKey}  # Ada\n`);
      const app = await open({ allowFile: file });
      expect((await app.claimWith(invited)).status).toBe(201);
      expect((await initProblem(app, new TestWallet())).code).toBe('not_eligible');
    });

    it('the claim is checked again: a message issued before the policy cannot claim after it', async () => {
      const wallet = new TestWallet();
      const app = await TestApp.open('pglite');
      apps.push(app);
      const { message } = await app.init(wallet.publicKey);
      await app.restart({ CLAIM_POLICY: JSON.stringify({ allow: [new TestWallet().publicKey] }) });
      const response = await app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey });
      expect(response.status).toBe(403);
      expect(((await response.json()) as ProblemBody).code).toBe('not_eligible');
      expect(await storedPasses(app, wallet.publicKey)).toBe(0);
    });
  });

  describe('token', () => {
    it('holding at least minAmount, summed over the wallet’s token accounts, qualifies (Token program)', async () => {
      const mint = await rpc.createMint({ decimals: 6 });
      const holder = new TestWallet();
      await rpc.mintTo(mint, holder.publicKey, 600n);
      await rpc.mintTo(mint, holder.publicKey, 400n);
      const short = new TestWallet();
      await rpc.mintTo(mint, short.publicKey, 999n);
      const app = await open({ token: { mint, minAmount: '1000' } });

      expect((await app.claimWith(holder)).status).toBe(201);
      const problem = await initProblem(app, short);
      expect(problem).toMatchObject({ httpStatus: 403, code: 'not_eligible' });
      expect(problem.detail).toBe(
        `This wallet cannot claim a pass yet: to be eligible, it needs to hold at least 1000 base units of the token ${mint} (it holds 999).`,
      );
      expect(await storedMessages(app, short.publicKey)).toBe(0);
    });

    it('Token-2022 balances count, compared exactly as u64 (above 2^53)', async () => {
      const mint = await rpc.createMint({ decimals: 9, program: 'token-2022' });
      const big = 2n ** 60n + 1n;
      const holder = new TestWallet();
      await rpc.mintTo(mint, holder.publicKey, big);
      const oneShort = new TestWallet();
      await rpc.mintTo(mint, oneShort.publicKey, big - 1n);
      const app = await open({ token: { mint, minAmount: big.toString() } });
      expect((await app.claimWith(holder)).status).toBe(201);
      expect((await initProblem(app, oneShort)).detail).toContain(`(it holds ${big - 1n})`);
    });

    it('a mint that does not exist has no holders: not_eligible, not 503', async () => {
      const app = await open({ token: { mint: new TestWallet().publicKey, minAmount: '1' } });
      expect((await initProblem(app, new TestWallet())).code).toBe('not_eligible');
    });

    it('someone who has just acquired the token is let in on the next try (refusals are not cached)', async () => {
      const mint = await rpc.createMint();
      const wallet = new TestWallet();
      const app = await open({ token: { mint, minAmount: '5' } });
      expect((await initProblem(app, wallet)).code).toBe('not_eligible');
      await rpc.mintTo(mint, wallet.publicKey, 5n);
      expect((await app.claimWith(wallet)).status).toBe(201);
    });
  });

  describe('holdings changing between init and claim', () => {
    it('tokens sold after init: the claim is refused, the message stays unused, and claims once they are back', async () => {
      const mint = await rpc.createMint();
      const wallet = new TestWallet();
      const account = await rpc.mintTo(mint, wallet.publicKey, 10n);
      const app = await open({ token: { mint, minAmount: '10' } }, { ELIGIBILITY_CACHE_SECONDS: '0' });

      const { message } = await app.init(wallet.publicKey);
      const elsewhere = new TestWallet();
      await rpc.transfer(account, wallet.keyPair.secretKey, elsewhere.publicKey, 10n);
      const claim = { message, signature: wallet.sign(message), publicKey: wallet.publicKey };
      const refused = await app.postClaim(claim);
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as ProblemBody).detail).toContain('(it holds 0)');
      expect(await storedPasses(app, wallet.publicKey)).toBe(0);

      await rpc.mintTo(mint, wallet.publicKey, 10n);
      expect((await app.postClaim(claim)).status).toBe(201);
    });

    it('within ELIGIBILITY_CACHE_SECONDS the claim reuses the init’s answer: one RPC call for the whole flow', async () => {
      const mint = await rpc.createMint();
      const wallet = new TestWallet();
      await rpc.mintTo(mint, wallet.publicKey, 1n);
      const app = await open({ token: { mint, minAmount: '1' } });
      const before = rpc.count();
      expect((await app.claimWith(wallet)).status).toBe(201);
      expect(rpc.count() - before).toBe(1);
    });
  });

  describe('collection', () => {
    it('an NFT whose metadata names the collection, verified, qualifies (Token and Token-2022 NFTs)', async () => {
      const collection = await rpc.createMint({ decimals: 0 });
      const classic = new TestWallet();
      await rpc.createNft(classic.publicKey, { collection, verified: true });
      const modern = new TestWallet();
      await rpc.createNft(modern.publicKey, { collection, verified: true, program: 'token-2022' });
      const app = await open({ collection });
      expect((await app.claimWith(classic)).status).toBe(201);
      expect((await app.claimWith(modern)).status).toBe(201);
    });

    it('unverified, foreign-collection, no-collection and sold NFTs do not', async () => {
      const collection = await rpc.createMint({ decimals: 0 });
      const foreign = await rpc.createMint({ decimals: 0 });
      const unverified = new TestWallet();
      await rpc.createNft(unverified.publicKey, { collection, verified: false });
      const other = new TestWallet();
      await rpc.createNft(other.publicKey, { collection: foreign, verified: true });
      const plain = new TestWallet();
      await rpc.createNft(plain.publicKey);
      const sold = new TestWallet();
      const { tokenAccount } = await rpc.createNft(sold.publicKey, { collection, verified: true });
      await rpc.transfer(tokenAccount, sold.keyPair.secretKey, new TestWallet().publicKey, 1n);
      const app = await open({ collection });
      for (const wallet of [unverified, other, plain, sold, new TestWallet()]) {
        const problem = await initProblem(app, wallet);
        expect(problem).toMatchObject({ httpStatus: 403, code: 'not_eligible' });
        expect(problem.detail).toBe(`This wallet cannot claim a pass yet: to be eligible, it needs to hold an NFT of the verified collection ${collection}.`);
      }
    });

    it('without DAS, a wallet with 150 NFTs: their metadata is read 100 accounts per call', async () => {
      rpc.das = false; // the provider does not serve DAS: token-metadata NFTs are read from their accounts
      const collection = await rpc.createMint({ decimals: 0 });
      const collector = new TestWallet();
      for (let i = 0; i < 149; i++) await rpc.createNft(collector.publicKey, { collection: i % 2 ? undefined : collection, verified: false });
      await rpc.createNft(collector.publicKey, { collection, verified: true });
      const app = await open({ collection });
      const before = rpc.count('getMultipleAccounts');
      expect((await app.init(collector.publicKey)).nonce).toBeTruthy();
      expect(rpc.count('getMultipleAccounts') - before).toBe(2);
    });
  });

  describe('all and any', () => {
    it('all: every part is needed, and every missing part is said', async () => {
      const mint = await rpc.createMint();
      const collection = await rpc.createMint({ decimals: 0 });
      const both = new TestWallet();
      await rpc.mintTo(mint, both.publicKey, 3n);
      await rpc.createNft(both.publicKey, { collection });
      const tokenOnly = new TestWallet();
      await rpc.mintTo(mint, tokenOnly.publicKey, 3n);
      const app = await open({ all: [{ token: { mint, minAmount: '3' } }, { collection }] });

      expect((await app.claimWith(both)).status).toBe(201);
      expect((await initProblem(app, tokenOnly)).detail).toBe(
        `This wallet cannot claim a pass yet: to be eligible, it needs to hold an NFT of the verified collection ${collection}.`,
      );
      expect((await initProblem(app, new TestWallet())).detail).toBe(
        `This wallet cannot claim a pass yet: to be eligible, it needs to hold at least 3 base units of the token ${mint} (it holds 0), and hold an NFT of the verified collection ${collection}.`,
      );
    });

    it('any: one part is enough; an invited wallet costs no RPC call; a refusal names every way in', async () => {
      const mint = await rpc.createMint();
      const invited = new TestWallet();
      const holder = new TestWallet();
      await rpc.mintTo(mint, holder.publicKey, 1n);
      const app = await open({ any: [{ token: { mint, minAmount: '1' } }, { allow: [invited.publicKey] }] });

      const before = rpc.count();
      expect((await app.claimWith(invited)).status).toBe(201);
      expect(rpc.count()).toBe(before);
      expect((await app.claimWith(holder)).status).toBe(201);
      expect((await initProblem(app, new TestWallet())).detail).toBe(
        `This wallet cannot claim a pass yet: to be eligible, it needs to either be on the list of wallets invited to claim, or hold at least 1 base units of the token ${mint} (it holds 0).`,
      );
    });

    it('nested: any(all(token, collection), allow)', async () => {
      const mint = await rpc.createMint({ program: 'token-2022' });
      const collection = await rpc.createMint({ decimals: 0 });
      const member = new TestWallet();
      await rpc.mintTo(mint, member.publicKey, 7n);
      await rpc.createNft(member.publicKey, { collection });
      const halfway = new TestWallet();
      await rpc.mintTo(mint, halfway.publicKey, 7n);
      const app = await open({ any: [{ all: [{ token: { mint, minAmount: '7' } }, { collection }] }, { allow: [new TestWallet().publicKey] }] });
      expect((await app.claimWith(member)).status).toBe(201);
      expect((await initProblem(app, halfway)).detail).toBe(
        `This wallet cannot claim a pass yet: to be eligible, it needs to either be on the list of wallets invited to claim, or hold an NFT of the verified collection ${collection}.`,
      );
    });
  });

  describe('an RPC that does not answer', () => {
    it('refused connections: 503 service_unavailable at init, nothing stored', async () => {
      const mint = await rpc.createMint();
      const app = await open({ token: { mint, minAmount: '1' } }, { SOLANA_RPC_TIMEOUT_MS: '1500' });
      rpc.outage = 'refuse';
      const wallet = new TestWallet();
      const problem = await initProblem(app, wallet);
      expect(problem).toMatchObject({ httpStatus: 503, code: 'service_unavailable' });
      expect(await storedMessages(app, wallet.publicKey)).toBe(0);
    });

    it('HTTP 503 from the provider is retried a bounded number of times, then 503', async () => {
      const mint = await rpc.createMint();
      const app = await open({ token: { mint, minAmount: '1' } }, { SOLANA_RPC_TIMEOUT_MS: '3000' });
      rpc.outage = 'http503';
      const before = rpc.requests;
      const started = Date.now();
      expect((await initProblem(app, new TestWallet())).httpStatus).toBe(503);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(rpc.requests - before).toBe(3); // the first try and two retries
    });

    it('a hanging RPC: 503 within SOLANA_RPC_TIMEOUT_MS, at init and at claim, and the message still claims later', async () => {
      const mint = await rpc.createMint();
      const wallet = new TestWallet();
      await rpc.mintTo(mint, wallet.publicKey, 1n);
      const app = await open({ token: { mint, minAmount: '1' } }, { SOLANA_RPC_TIMEOUT_MS: '800', ELIGIBILITY_CACHE_SECONDS: '0' });
      const { message } = await app.init(wallet.publicKey);

      rpc.outage = 'hang';
      let started = Date.now();
      expect((await initProblem(app, new TestWallet())).httpStatus).toBe(503);
      expect(Date.now() - started).toBeLessThan(800 + 700);
      const claim = { message, signature: wallet.sign(message), publicKey: wallet.publicKey };
      started = Date.now();
      const response = await app.postClaim(claim);
      expect(response.status).toBe(503);
      expect(((await response.json()) as ProblemBody).code).toBe('service_unavailable');
      expect(Date.now() - started).toBeLessThan(800 + 700);
      expect(await storedPasses(app, wallet.publicKey)).toBe(0);

      rpc.outage = null;
      expect((await app.postClaim(claim)).status).toBe(201);
    });
  });

  describe('an RPC answer that does not decode, or does not end', () => {
    type TokenAccounts = { result: { value: { account: { data: { parsed: { info: { tokenAmount: { amount: string } } } } } }[] } };
    const withAmount = (amount: string) => (answer: unknown, method: string) => {
      if (method === 'getTokenAccountsByOwner') {
        for (const { account } of (answer as TokenAccounts).result.value) account.data.parsed.info.tokenAmount.amount = amount;
      }
      return answer;
    };

    /** A token policy, and a wallet holding 5 of its base units. */
    async function holder(env: Record<string, string> = {}): Promise<{ app: TestApp; wallet: TestWallet }> {
      const mint = await rpc.createMint({ decimals: 0 });
      const wallet = new TestWallet();
      await rpc.mintTo(mint, wallet.publicKey, 5n);
      return { app: await open({ token: { mint, minAmount: '1' } }, { ELIGIBILITY_CACHE_SECONDS: '0', ...env }), wallet };
    }

    async function expectUnavailable(app: TestApp, wallet: TestWallet, withinMs?: number): Promise<void> {
      const started = Date.now();
      const problem = await initProblem(app, wallet);
      expect(problem).toMatchObject({ httpStatus: 503, status: 503, code: 'service_unavailable' });
      if (withinMs !== undefined) expect(Date.now() - started).toBeLessThan(withinMs);
      expect(await storedMessages(app, wallet.publicKey)).toBe(0);
    }

    it.each(['abc', '0x10', '-5', '1e3', ' 5', '5.0', ''])('a token amount of %j: 503, never counted', async (amount) => {
      const { app, wallet } = await holder();
      rpc.rewrite = withAmount(amount);
      await expectUnavailable(app, wallet);
    });

    it('a claim whose answer does not decode: 503, no pass made; the same claim succeeds once the RPC answers well', async () => {
      const { app, wallet } = await holder();
      const { message } = await app.init(wallet.publicKey);
      rpc.rewrite = withAmount('abc');
      const claim = { message, signature: wallet.sign(message), publicKey: wallet.publicKey };
      const response = await app.postClaim(claim);
      expect(response.status).toBe(503);
      expect(((await response.json()) as ProblemBody).code).toBe('service_unavailable');
      expect(await storedPasses(app, wallet.publicKey)).toBe(0);
      rpc.rewrite = null;
      expect((await app.postClaim(claim)).status).toBe(201);
    });

    it.each([
      ['result null', (answer: unknown) => ({ ...(answer as object), result: null })],
      ['value not a list', (answer: unknown) => ({ ...(answer as object), result: { context: { slot: 1 }, value: 'x' } })],
      [
        'an account without parsed data',
        (answer: unknown) => ({ ...(answer as object), result: { context: { slot: 1 }, value: [{ pubkey: 'x', account: {} }] } }),
      ],
      ['neither result nor error', () => ({ jsonrpc: '2.0', id: 1 })],
    ])('%s: 503', async (_, rewrite) => {
      const { app, wallet } = await holder();
      rpc.rewrite = rewrite;
      await expectUnavailable(app, wallet);
    });

    it('collection metadata answered with result null: 503', async () => {
      rpc.das = false;
      const collection = await rpc.createMint({ decimals: 0 });
      const wallet = new TestWallet();
      await rpc.createNft(wallet.publicKey, { collection });
      const app = await open({ collection }, { ELIGIBILITY_CACHE_SECONDS: '0' });
      rpc.rewrite = (answer, method) => (method === 'getMultipleAccounts' ? { ...(answer as object), result: null } : answer);
      await expectUnavailable(app, wallet);
    });

    it('a DAS page answered without its list of items: 503', async () => {
      const collection = await rpc.createMint({ decimals: 0 });
      const wallet = new TestWallet();
      await rpc.addCompressedNft(wallet.publicKey, { collection });
      const app = await open({ collection }, { ELIGIBILITY_CACHE_SECONDS: '0' });
      rpc.rewrite = (answer, method) => (method === 'getAssetsByOwner' ? { ...(answer as object), result: { total: 1, limit: 1000, page: 1 } } : answer);
      await expectUnavailable(app, wallet);
    });

    it('an answer larger than SOLANA_RPC_MAX_BYTES: 503 at once, not read on, not retried', async () => {
      const { app, wallet } = await holder({ SOLANA_RPC_MAX_BYTES: '65536', SOLANA_RPC_TIMEOUT_MS: '5000' });
      rpc.rewrite = (answer) => ({ ...(answer as object), padding: 'x'.repeat(4 * 1024 * 1024) });
      const before = rpc.requests;
      await expectUnavailable(app, wallet, 2000);
      expect(rpc.requests - before).toBe(1);
    });

    it('an answer that trickles in past SOLANA_RPC_TIMEOUT_MS: 503 at the deadline', async () => {
      const { app, wallet } = await holder({ SOLANA_RPC_TIMEOUT_MS: '800' });
      rpc.rewrite = (answer) => ({ ...(answer as object), padding: 'x'.repeat(20_000) });
      rpc.drip = { bytes: 64, everyMs: 50 };
      await expectUnavailable(app, wallet, 800 + 700);
    });
  });

  it('without a policy the RPC is never called', async () => {
    const app = await TestApp.open('pglite', { SOLANA_RPC_URL: rpc.url });
    apps.push(app);
    const before = rpc.count();
    expect((await app.claimWith(new TestWallet())).status).toBe(201);
    expect(rpc.count()).toBe(before);
    expect(app.services.eligibility).toBeUndefined();
  });
});
