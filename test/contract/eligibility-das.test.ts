// More of Solana (issue 23, items 1 and 2): the collection rule sees compressed NFTs and Metaplex
// Core assets through the DAS API (getAssetsByOwner, paged), traits narrow it to assets with given
// attributes, a provider without DAS falls back to token-metadata NFTs (logged once, and the doctor
// says so), and the group rule matches a Token-2022 group member held with a balance. Against the
// local Solana JSON-RPC stand-in (DAS shapes; Token-2022 mint bytes made by the official codecs),
// over real sockets, at claim and in re-check rounds.
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatLine } from '@/lib/cli/doctor/check-line';
import { checkSolanaDas } from '@/lib/cli/doctor/solana';
import { loadConfig } from '@/lib/config';
import { createChainReader } from '@/lib/eligibility/chain';
import { EligibilityChecker } from '@/lib/eligibility/checker';
import { runRecheckRound } from '@/lib/eligibility/recheck';
import { insertPasses } from '../../scripts/support/seed-passes';
import { TestApp, TestWallet } from '../support/app';
import { SolanaRpcStandIn } from '../support/stand-ins/solana-rpc';

type ProblemBody = { code: string; status: number; detail: string };

/** A wallet address nobody signs for: holders a round reads. */
const randomAddress = () => bs58.encode(randomBytes(32));

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** An asset id that sorts after any random one ("zzz…", 43 characters: 32 bytes), so it lands on the last DAS page. */
function lastId(): string {
  const id = `zzz${Array.from(randomBytes(40), (byte) => BASE58[byte % 58]).join('')}`;
  if (bs58.decode(id).length !== 32) throw new Error('not an address');
  return id;
}

describe('collections through DAS, traits, and Token-2022 groups', () => {
  let rpc: SolanaRpcStandIn;
  let shared: TestApp;
  let logged: string[] = [];

  beforeAll(async () => {
    rpc = await SolanaRpcStandIn.start();
    shared = await TestApp.open('pglite', { CLAIM_POLICY: JSON.stringify({ allow: [new TestWallet().publicKey] }), SOLANA_RPC_URL: rpc.url });
  });
  afterEach(() => {
    rpc.das = true;
    rpc.dasKeyset = true;
    logged = [];
  });
  afterAll(async () => {
    await shared.close();
    await rpc.close();
  });

  /** Gives the shared service `policy` as start-up does (a fresh chain reader: what it knows of DAS starts afresh), logging into `logged`. */
  function open(policy: unknown, env: Record<string, string> = {}): TestApp {
    const config = loadConfig({ ...shared.env, CLAIM_POLICY: JSON.stringify(policy), ...env });
    const log = pino({ level: 'info' }, { write: (line: string) => void logged.push(line) });
    shared.services.eligibility = new EligibilityChecker(
      config.claimPolicy!,
      createChainReader(config.solanaRpcUrl!, { maxBytes: config.solanaRpcMaxBytes, rps: config.solanaRpcRps, log }),
      { cacheSeconds: 0, timeoutMs: config.solanaRpcTimeoutMs },
    );
    return shared;
  }

  async function refusal(app: TestApp, wallet: TestWallet | string): Promise<ProblemBody & { httpStatus: number }> {
    const publicKey = typeof wallet === 'string' ? wallet : wallet.publicKey;
    const response = await app.fetch(`/api/v1/claim/init?publicKey=${publicKey}`);
    return { ...((await response.json()) as ProblemBody), httpStatus: response.status };
  }

  const eligible = async (app: TestApp, wallet: TestWallet | string) =>
    (await app.fetch(`/api/v1/claim/init?publicKey=${typeof wallet === 'string' ? wallet : wallet.publicKey}`)).status === 200;

  describe('collection, read with DAS', () => {
    it('a compressed NFT and a Core asset of the collection qualify; a token-metadata NFT does too, read through DAS alone', async () => {
      const collection = randomAddress();
      const compressed = new TestWallet();
      await rpc.addCompressedNft(compressed.publicKey, { collection });
      const core = new TestWallet();
      await rpc.addCoreAsset(core.publicKey, { collection });
      const classic = new TestWallet();
      await rpc.createNft(classic.publicKey, { collection, verified: true });
      const app = open({ collection });

      expect((await app.claimWith(compressed)).status).toBe(201);
      expect((await app.claimWith(core)).status).toBe(201);
      const before = { das: rpc.count('getAssetsByOwner'), accounts: rpc.count('getTokenAccountsByOwner'), metadata: rpc.count('getMultipleAccounts') };
      expect((await app.claimWith(classic)).status).toBe(201);
      // init and claim: one DAS page each, and nothing else.
      expect(rpc.count('getAssetsByOwner') - before.das).toBe(2);
      expect(rpc.count('getTokenAccountsByOwner') - before.accounts).toBe(0);
      expect(rpc.count('getMultipleAccounts') - before.metadata).toBe(0);
    });

    it('an unverified grouping, another collection, a burnt asset and an asset given away do not qualify', async () => {
      const collection = randomAddress();
      const unverified = new TestWallet();
      await rpc.addCompressedNft(unverified.publicKey, { collection, verified: false });
      const unverifiedClassic = new TestWallet();
      await rpc.createNft(unverifiedClassic.publicKey, { collection, verified: false });
      const other = new TestWallet();
      await rpc.addCoreAsset(other.publicKey, { collection: randomAddress() });
      const burnt = new TestWallet();
      await rpc.addCompressedNft(burnt.publicKey, { collection, burnt: true });
      const gaveAway = new TestWallet();
      const given = await rpc.addCompressedNft(gaveAway.publicKey, { collection });
      rpc.moveAsset(given, randomAddress());
      const app = open({ collection });
      for (const wallet of [unverified, unverifiedClassic, other, burnt, gaveAway]) {
        expect(await refusal(app, wallet)).toMatchObject({
          httpStatus: 403,
          code: 'not_eligible',
          detail: `This wallet cannot claim a pass yet: to be eligible, it needs to hold an NFT of the verified collection ${collection}.`,
        });
      }
    });

    it('a wallet with more than one DAS page of assets is read to the end, by keyset and by page number', async () => {
      const collection = randomAddress();
      const collector = new TestWallet();
      for (let i = 0; i < 1200; i++) await rpc.addCompressedNft(collector.publicKey, { collection: randomAddress(), id: randomAddress() });
      // The one asset of the collection sorts last: on the second page.
      await rpc.addCompressedNft(collector.publicKey, { collection, id: lastId() });
      const app = open({ collection });

      for (const keyset of [true, false]) {
        rpc.dasKeyset = keyset;
        const from = rpc.arrivals.length;
        expect(await eligible(app, collector)).toBe(true);
        const pages = rpc.arrivals.slice(from).filter((arrival) => arrival.method === 'getAssetsByOwner');
        expect(pages).toHaveLength(2);
      }
    }, 60_000);

    it('a page larger than SOLANA_RPC_MAX_BYTES is asked again in pages half the size, and the wallet still read to the end', async () => {
      const collection = randomAddress();
      const collector = new TestWallet();
      for (let i = 0; i < 599; i++) await rpc.addCompressedNft(collector.publicKey, { collection: randomAddress(), id: randomAddress() });
      await rpc.addCompressedNft(collector.publicKey, { collection, id: lastId() });
      let before = rpc.answeredBytes;
      expect(await eligible(open({ collection }), collector)).toBe(true);
      const perAsset = (rpc.answeredBytes - before) / 600;
      // Room for about 400 assets a page: 1,000 and 500 are too many, 250 fit.
      const app = open({ collection }, { SOLANA_RPC_MAX_BYTES: String(Math.round(perAsset * 400)) });
      for (const keyset of [true, false]) {
        rpc.dasKeyset = keyset;
        const from = rpc.arrivals.length;
        before = rpc.answeredBytes;
        expect(await eligible(app, collector)).toBe(true);
        // 1,000 and 500 dropped as they arrive; then 250, 250 and the last 100.
        expect(rpc.arrivals.slice(from).filter((arrival) => arrival.method === 'getAssetsByOwner')).toHaveLength(5);
      }
    }, 60_000);
  });

  describe('traits', () => {
    it('only an asset with every named attribute qualifies, compared exactly; the refusal says the traits', async () => {
      const collection = randomAddress();
      const blue = new TestWallet();
      await rpc.addCompressedNft(blue.publicKey, {
        collection,
        attributes: [
          { trait_type: 'Background', value: 'Blue' },
          { trait_type: 'Eyes', value: 'Laser' },
          { trait_type: 'Level', value: 7 },
        ],
      });
      const red = new TestWallet();
      await rpc.addCoreAsset(red.publicKey, {
        collection,
        attributes: [
          { trait_type: 'Background', value: 'Red' },
          { trait_type: 'Eyes', value: 'Laser' },
        ],
      });
      const halfway = new TestWallet(); // the traits spread over two assets: no single asset has both
      await rpc.addCompressedNft(halfway.publicKey, { collection, attributes: [{ trait_type: 'Background', value: 'Blue' }] });
      await rpc.addCompressedNft(halfway.publicKey, { collection, attributes: [{ trait_type: 'Eyes', value: 'Laser' }] });
      const elsewhere = new TestWallet(); // the traits, in another collection
      await rpc.addCompressedNft(elsewhere.publicKey, {
        collection: randomAddress(),
        attributes: [
          { trait_type: 'Background', value: 'Blue' },
          { trait_type: 'Eyes', value: 'Laser' },
        ],
      });
      const classic = new TestWallet(); // a token-metadata NFT, its attributes as DAS indexed them
      await rpc.createNft(classic.publicKey, {
        collection,
        attributes: [
          { trait_type: 'Background', value: 'Blue' },
          { trait_type: 'Eyes', value: 'Laser' },
        ],
      });

      const app = open({ collection, traits: { Background: 'Blue', Eyes: 'Laser' } });
      expect(await eligible(app, blue)).toBe(true);
      expect(await eligible(app, classic)).toBe(true);
      for (const wallet of [red, halfway, elsewhere]) {
        expect(await refusal(app, wallet)).toMatchObject({
          httpStatus: 403,
          detail: `This wallet cannot claim a pass yet: to be eligible, it needs to hold an NFT of the verified collection ${collection} with the traits Background "Blue" and Eyes "Laser".`,
        });
      }
      // A number attribute is matched by its text; the case of a value counts.
      expect(await eligible(open({ collection, traits: { Level: '7' } }), blue)).toBe(true);
      expect(await eligible(open({ collection, traits: { Background: 'blue' } }), blue)).toBe(false);
    });

    it('a program’s policy with bad traits is refused at the field, and its claim page says the traits in words', async () => {
      const operator = new TestWallet();
      const app = await TestApp.open('pglite', { OPERATOR_WALLETS: operator.publicKey, SOLANA_RPC_URL: rpc.url });
      try {
        const token = await app.operatorToken(operator);
        const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
        const collection = randomAddress();
        const create = (policy: unknown, slug: string) =>
          app.fetch('/api/v1/operator/programs', { method: 'POST', headers, body: JSON.stringify({ slug, name: 'Blue club', status: 'live', policy }) });
        const bad = await create({ collection, traits: { Background: 7 } }, 'blue-bad');
        expect(bad.status).toBe(400);
        expect(await bad.json()).toMatchObject({
          code: 'invalid_request',
          fields: [{ field: 'policy.traits.Background', message: 'must be the attribute’s value as text, e.g. "Blue" (a number is written as text too: "7")' }],
        });
        const alone = await create({ traits: { Background: 'Blue' } }, 'blue-alone');
        expect(await alone.json()).toMatchObject({ fields: [{ field: 'policy.traits', message: expect.stringMatching(/^belongs beside collection/) }] });

        expect((await create({ collection, traits: { Background: 'Blue', Eyes: 'Laser' } }, 'blue-club')).status).toBe(201);
        const words = `Holders of an NFT of the collection ${collection.slice(0, 4)}…${collection.slice(-4)} with Background: Blue and Eyes: Laser`;
        expect(JSON.stringify(await (await app.fetch('/api/v1/programs/blue-club')).json())).toContain(words);
      } finally {
        await app.close();
      }
    });
  });

  describe('a provider without DAS', () => {
    it('falls back to token-metadata NFTs, says so in the log once, and sends no more DAS requests', async () => {
      rpc.das = false;
      const collection = await rpc.createMint({ decimals: 0 });
      const classic = new TestWallet();
      await rpc.createNft(classic.publicKey, { collection, verified: true });
      const compressed = new TestWallet();
      await rpc.addCompressedNft(compressed.publicKey, { collection });
      const app = open({ any: [{ collection }, { collection, traits: { Background: 'Blue' } }] });

      const before = rpc.count('getAssetsByOwner');
      expect((await app.claimWith(classic)).status).toBe(201);
      expect(await refusal(app, compressed)).toMatchObject({ httpStatus: 403, code: 'not_eligible' });
      expect(await eligible(app, classic)).toBe(true);
      // Asked once (-32601), then known.
      expect(rpc.count('getAssetsByOwner') - before).toBe(1);
      const lines = logged.map((line) => JSON.parse(line) as { event?: string; level: number; msg: string });
      expect(lines.filter((line) => line.event === 'das_not_served')).toEqual([
        expect.objectContaining({ level: 40, msg: expect.stringContaining('collection rules count token-metadata NFTs only') }),
      ]);
    });

    it('the doctor says whether SOLANA_RPC_URL serves DAS', async () => {
      const config = loadConfig({
        ...shared.env,
        CLAIM_POLICY: JSON.stringify({ collection: randomAddress() }),
        SOLANA_RPC_URL: `${rpc.url}/?api-key=das-secret`,
      });
      const served = formatLine(await checkSolanaDas(config, 1500));
      expect(served).toBe(`✓ SOLANA_RPC_URL serves the DAS API (getAssetsByOwner): collection rules see compressed NFTs and Core assets too (${rpc.url})`);
      rpc.das = false;
      const line = await checkSolanaDas(config, 1500);
      expect(formatLine(line)).toBe(
        `✗ SOLANA_RPC_URL (${rpc.url}): does not serve the DAS API (getAssetsByOwner: method not found): collection rules count token-metadata NFTs only, ` +
          'not compressed NFTs or Metaplex Core assets, and a rule with traits matches no one. Fix: choose a provider that serves DAS ' +
          '(Helius, Triton, QuickNode with its DAS add-on) if the collection has compressed NFTs or Core assets (a warning: it fails the doctor only with --production)',
      );
      expect(JSON.stringify(line)).not.toContain('das-secret');
    });
  });

  describe('group: a Token-2022 group member', () => {
    it('a member token held with a balance qualifies; a zero balance, another group’s member, or a plain Token-2022 token do not', async () => {
      const group = await rpc.createTokenGroup();
      const otherGroup = await rpc.createTokenGroup();
      const member = new TestWallet();
      await rpc.createGroupMember(group, member.publicKey, 1n);
      const emptied = new TestWallet();
      await rpc.createGroupMember(group, emptied.publicKey, 0n);
      const foreign = new TestWallet();
      await rpc.createGroupMember(otherGroup, foreign.publicKey, 1n);
      const plain = new TestWallet();
      await rpc.mintTo(await rpc.createMint({ program: 'token-2022', decimals: 0 }), plain.publicKey, 1n);
      const app = open({ group });

      expect((await app.claimWith(member)).status).toBe(201);
      for (const wallet of [emptied, foreign, plain, new TestWallet()]) {
        expect(await refusal(app, wallet)).toMatchObject({
          httpStatus: 403,
          code: 'not_eligible',
          detail: `This wallet cannot claim a pass yet: to be eligible, it needs to hold a token of the Token-2022 group ${group}.`,
        });
      }
    });
  });

  describe('re-check rounds', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await TestApp.open('pglite', {
        CLAIM_POLICY: JSON.stringify({ allow: [new TestWallet().publicKey] }),
        SOLANA_RPC_URL: rpc.url,
        ELIGIBILITY_RECHECK_SECONDS: '0',
      });
    });
    afterAll(() => app.close());

    function policy(rule: unknown, env: Record<string, string> = {}): void {
      const config = loadConfig({ ...app.env, CLAIM_POLICY: JSON.stringify(rule), ...env });
      app.services.eligibility = new EligibilityChecker(
        config.claimPolicy!,
        createChainReader(config.solanaRpcUrl!, { maxBytes: config.solanaRpcMaxBytes, rps: config.solanaRpcRps, dasRps: config.solanaDasRps }),
        { cacheSeconds: 0, timeoutMs: config.solanaRpcTimeoutMs },
      );
    }

    async function statuses(): Promise<Map<string, string>> {
      const rows = await app.services.store.sql.query<{ key: string; status: string }>('select public_key as key, status from passes');
      return new Map(rows.map((row) => [row.key, row.status]));
    }

    it('a group rule: a holder whose member token balance fell to 0 is voided, and restored when it is back; mints are read 100 a call', async () => {
      await app.services.store.sql.query('delete from passes');
      const group = await rpc.createTokenGroup();
      const holders = Array.from({ length: 120 }, randomAddress);
      const accounts = new Map<string, string>();
      for (const holder of holders) accounts.set(holder, (await rpc.createGroupMember(group, holder, 1n)).tokenAccount);
      await insertPasses(app.services.store.sql, holders);
      policy({ group });

      const [seller] = holders;
      rpc.setTokenAmount(accounts.get(seller!)! as never, 0n);
      const from = rpc.arrivals.length;
      let outcome = await runRecheckRound(app.services, { intervalSeconds: 0 });
      expect(outcome).toMatchObject({ ran: true, round: { checked: 120, voided: 1, restored: 0, error: null } });
      const sent = rpc.arrivals.slice(from);
      // One look at each wallet's Token-2022 accounts; the 120 member mints in two getMultipleAccounts calls.
      expect(sent.filter((arrival) => arrival.method === 'getTokenAccountsByOwner')).toHaveLength(120);
      expect(sent.filter((arrival) => arrival.method === 'getMultipleAccounts')).toHaveLength(2);
      expect(outcome.ran && outcome.round.requests).toBe(122);
      const after = await statuses();
      expect(after.get(seller!)).toBe('voided');
      expect([...after.values()].filter((status) => status === 'active')).toHaveLength(119);

      rpc.setTokenAmount(accounts.get(seller!)! as never, 1n);
      outcome = await runRecheckRound(app.services, { intervalSeconds: 0 });
      expect(outcome).toMatchObject({ ran: true, round: { voided: 0, restored: 1 } });
    }, 120_000);

    it('a collection rule: DAS pages are paced by the RPC budget (and SOLANA_DAS_RPS within it) and counted as the round’s requests', async () => {
      await app.services.store.sql.query('delete from passes');
      const collection = randomAddress();
      const holders = Array.from({ length: 30 }, randomAddress);
      for (const holder of holders) await rpc.addCoreAsset(holder, { collection });
      // One holder with two pages of assets, the collection's on the second.
      const collector = randomAddress();
      for (let i = 0; i < 1000; i++) await rpc.addCompressedNft(collector, { collection: randomAddress(), id: randomAddress() });
      await rpc.addCompressedNft(collector, { collection, id: lastId() });
      const seller = randomAddress(); // gave its asset away since its claim
      rpc.moveAsset(await rpc.addCoreAsset(seller, { collection }), randomAddress());
      await insertPasses(app.services.store.sql, [...holders, collector, seller]);
      const dasRps = 10;
      policy({ collection }, { SOLANA_RPC_RPS: '20', SOLANA_DAS_RPS: String(dasRps) });

      const from = rpc.arrivals.length;
      const outcome = await runRecheckRound(app.services, { intervalSeconds: 0 });
      expect(outcome).toMatchObject({ ran: true, round: { checked: 32, voided: 1, error: null } });
      const pages = rpc.arrivals.slice(from).filter((arrival) => arrival.method === 'getAssetsByOwner');
      // One page per wallet, two for the collector (a request tried again, its socket reset under load, counts twice).
      expect(new Set(pages.map((page) => page.first)).size).toBe(32);
      expect(pages.filter((page) => page.first === collector).length).toBeGreaterThanOrEqual(2);
      expect(pages.length).toBeGreaterThanOrEqual(33);
      expect(outcome.ran && outcome.round.requests).toBe(pages.length);
      // Every request of the round is a DAS page: at most SOLANA_DAS_RPS of them in any second, though SOLANA_RPC_RPS is 20.
      expect(rpc.busiestSecond(from)).toBeLessThanOrEqual(dasRps);
      expect(rpc.throttled).toBe(0);
      const statusesNow = await statuses();
      expect(statusesNow.get(seller)).toBe('voided');
      expect(statusesNow.get(collector)).toBe('active');
    }, 120_000);
  });
});
