// Whether a wallet meets CLAIM_POLICY now: the rules of policy.ts evaluated against the chain
// (chain.ts), with the missing requirement said in plain words, a short cache of positive answers
// for the claim path, and a batched form for the re-check rounds.

import type { Address } from '@solana/kit';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from './accounts';
import { type ChainReader, ChainUnavailable, type Deadline, deadlineIn, newTally, type RequestTally, type TokenHolding } from './chain';
import { assetMatches, type DasAsset } from './das';
import type { ClaimRule } from './policy';

export type Verdict = { eligible: true } | { eligible: false; missing: string };

/**
 * What one re-check round shares across its pages: the requests it sent, each mint's program,
 * and each Token-2022 mint's group (a member extension is never removed), found once.
 */
export type RoundReads = { tally: RequestTally; mintPrograms: Map<string, Promise<Address | null>>; mintGroups: Map<string, string | null> };

export function newRoundReads(): RoundReads {
  return { tally: newTally(), mintPrograms: new Map(), mintGroups: new Map() };
}

/** Wallets whose positive answers are kept at most (oldest dropped first): bounds the memory an init flood can take. */
const CACHE_LIMIT = 50_000;
/** Wallets checked at once in a batch (each is one to three RPC calls at a time). */
const BATCH_CONCURRENCY = 16;

export class EligibilityChecker {
  /** wallet → when its positive answer stops being reused (ms). */
  private readonly cache = new Map<string, number>();

  constructor(
    readonly policy: ClaimRule,
    private readonly chain: ChainReader | undefined,
    private readonly options: { cacheSeconds: number; timeoutMs: number },
  ) {}

  /** RPC requests sent so far. */
  get rpcCalls(): number {
    return this.chain?.calls ?? 0;
  }

  /**
   * The verdict for one wallet, for the claim path. A positive answer is reused for
   * ELIGIBILITY_CACHE_SECONDS; a negative one never is, so a person who has just acquired the
   * token is let in on the next try. Throws ChainUnavailable when the RPC cannot answer in time.
   */
  async check(wallet: string): Promise<Verdict> {
    const until = this.cache.get(wallet);
    if (until !== undefined) {
      if (until > Date.now()) return { eligible: true };
      this.cache.delete(wallet);
    }
    const verdict = await this.evaluate(wallet, new Facts(this.chain, deadlineIn(this.options.timeoutMs)));
    if (verdict.eligible) this.remember(wallet);
    return verdict;
  }

  /**
   * Fresh verdicts for many wallets (never from the cache), for a re-check round, its requests
   * waiting behind the claim path's in the RPC budget and counted in `tally`. Token balances are
   * read from the wallets' associated token accounts first (the mint's program found once, 100
   * accounts per getMultipleAccounts call); only a wallet short of a rule's amount there gets a
   * getTokenAccountsByOwner call (it may hold the tokens in other accounts). NFT holdings are read
   * per wallet, then the metadata of all their NFTs together, at most 100 accounts per call.
   * Throws ChainUnavailable if any read fails: a round decides nothing on partial answers.
   */
  async checkMany(wallets: string[], round: RoundReads = newRoundReads()): Promise<Map<string, Verdict>> {
    const mints = tokenMints(this.policy);
    const collections = hasRule(this.policy, 'collection');
    const groups = hasRule(this.policy, 'group');
    // Each check's own deadline per 16 wallets, plus the time the budget may pace this page's
    // requests over, twice (a round checks two pages at a time: recheck.ts). A collection costs a
    // wallet one DAS page, or without DAS two token-account reads and its metadata.
    const requests =
      1 +
      mints.size * (1 + wallets.length) +
      (collections ? 2 * wallets.length + Math.ceil(wallets.length / 10) : 0) +
      (groups ? wallets.length + Math.ceil(wallets.length / 10) : 0);
    const pacing = 2 * (this.chain?.budget.intervalMs ?? 0) * requests;
    const deadline = deadlineIn(this.options.timeoutMs * Math.max(1, Math.ceil(wallets.length / BATCH_CONCURRENCY)) + pacing, 'round', round.tally);
    const facts = new Facts(this.chain, deadline, round.mintPrograms, round.mintGroups);
    await Promise.all([...mints].map((mint) => facts.prefetchAssociatedBalances(wallets, mint)));
    if (collections) {
      // Through DAS, one wallet after another within the budget; without DAS, the token-metadata
      // NFTs, their metadata read together.
      await pool(wallets, BATCH_CONCURRENCY, (wallet) => facts.assets(wallet));
      if (this.chain?.servesDas === false) {
        await pool(wallets, BATCH_CONCURRENCY, (wallet) => facts.nftMints(wallet));
        await facts.prefetchCollections();
      }
    }
    if (groups) {
      await pool(wallets, BATCH_CONCURRENCY, (wallet) => facts.holdings(wallet, TOKEN_2022_PROGRAM));
      await facts.prefetchGroups();
    }
    const verdicts = new Map<string, Verdict>();
    await pool(wallets, BATCH_CONCURRENCY, async (wallet) => {
      const verdict = await this.evaluate(wallet, facts);
      // A wallet found no longer eligible stops being let in on this instance's cached "yes".
      if (!verdict.eligible) this.cache.delete(wallet);
      verdicts.set(wallet, verdict);
    });
    return verdicts;
  }

  private remember(wallet: string): void {
    if (this.options.cacheSeconds <= 0) return;
    this.cache.delete(wallet);
    this.cache.set(wallet, Date.now() + this.options.cacheSeconds * 1000);
    if (this.cache.size <= CACHE_LIMIT) return;
    const oldest = this.cache.keys().next();
    if (!oldest.done) this.cache.delete(oldest.value);
  }

  private async evaluate(wallet: string, facts: Facts): Promise<Verdict> {
    const missing = await unmet(this.policy, wallet, facts);
    return missing === undefined ? { eligible: true } : { eligible: false, missing };
  }
}

/**
 * The requirement `wallet` does not meet, as words that follow "it needs to" (undefined: it meets
 * the rule). Never names an allowlist's addresses: only that the wallet is not on the list.
 */
async function unmet(rule: ClaimRule, wallet: string, facts: Facts): Promise<string | undefined> {
  switch (rule.kind) {
    case 'allow':
      return rule.addresses.has(wallet) ? undefined : 'be on the list of wallets invited to claim';
    case 'token': {
      const balance = await facts.tokenBalance(wallet, rule.mint, rule.minAmount);
      if (balance >= rule.minAmount) return undefined;
      return `hold at least ${rule.minAmount} base units of the token ${rule.mint} (it holds ${balance})`;
    }
    case 'collection': {
      if (await facts.holdsOfCollection(wallet, rule.collection, rule.traits)) return undefined;
      const traits = rule.traits ? ` with ${traitsInWords(rule.traits)}` : '';
      return `hold an NFT of the verified collection ${rule.collection}${traits}`;
    }
    case 'group': {
      const groups = await facts.groupsHeld(wallet);
      return groups.has(rule.group) ? undefined : `hold a token of the Token-2022 group ${rule.group}`;
    }
    case 'all': {
      // Every part is needed anyway when the wallet qualifies, so they are read at once; all the
      // missing parts are said, so the person learns everything to do in one answer.
      const parts = await Promise.all(rule.rules.map((part) => unmet(part, wallet, facts)));
      const missing = parts.filter((part): part is string => part !== undefined);
      return missing.length === 0 ? undefined : missing.join(', and ');
    }
    case 'any': {
      // Rules that read nothing from the chain first (an invited wallet costs no RPC call), then
      // those already settled by what was read (a round's associated accounts), then the rest.
      const cost = (part: ClaimRule) => (!readsChain(part) ? 0 : facts.settled(part, wallet) ? 1 : 2);
      const ordered = [...rule.rules].sort((a, b) => cost(a) - cost(b));
      const missing: string[] = [];
      for (const part of ordered) {
        const reason = await unmet(part, wallet, facts);
        if (reason === undefined) return undefined;
        missing.push(reason);
      }
      return missing.length === 1 ? missing[0] : `either ${missing.join(', or ')}`;
    }
  }
}

/** What has been read from the chain for one check (or one round), each fact read once. */
class Facts {
  private readonly balances = new Map<string, Promise<bigint>>();
  /** "wallet mint" → its balance in its associated token account: at most its whole balance. */
  private readonly associated = new Map<string, bigint>();
  private readonly nfts = new Map<string, Promise<string[]>>();
  private readonly collections = new Map<string, string | null>();
  /** wallet → its assets as DAS lists them (null: the provider does not serve DAS). */
  private readonly dasAssets = new Map<string, Promise<DasAsset[] | null>>();
  /** "wallet program" → its token accounts under that program. */
  private readonly tokenAccounts = new Map<string, Promise<TokenHolding[]>>();

  constructor(
    private readonly chain: ChainReader | undefined,
    private readonly deadline: Deadline,
    private readonly mintPrograms = new Map<string, Promise<Address | null>>(),
    private readonly mintGroups = new Map<string, string | null>(),
  ) {}

  private reader(): ChainReader {
    if (!this.chain) throw new ChainUnavailable(new Error('SOLANA_RPC_URL is not set'));
    return this.chain;
  }

  /**
   * For a round: every wallet's balance of `mint` in its associated token account, under the
   * program that owns the mint (one getAccountInfo per round), 100 accounts per call. A mint that does not
   * exist has no holders: every balance is 0, with no more reads.
   */
  async prefetchAssociatedBalances(wallets: string[], mint: string): Promise<void> {
    let known = this.mintPrograms.get(mint);
    if (!known) {
      known = this.reader().mintProgram(mint, this.deadline);
      this.mintPrograms.set(mint, known);
      // A failed read is not kept: the page's failure stops the round anyway.
      known.catch(() => this.mintPrograms.delete(mint));
    }
    const program = await known;
    if (!program) {
      for (const wallet of wallets) this.balances.set(`${wallet} ${mint}`, Promise.resolve(0n));
      return;
    }
    const found = await this.reader().associatedBalances(wallets, mint, program, this.deadline);
    for (const [wallet, amount] of found) this.associated.set(`${wallet} ${mint}`, amount);
  }

  /** True when `rule` is decided by what was read already, so that evaluating it sends no request. */
  settled(rule: ClaimRule, wallet: string): boolean {
    if (rule.kind !== 'token') return !readsChain(rule);
    const key = `${wallet} ${rule.mint}`;
    return this.balances.has(key) || (this.associated.get(key) ?? -1n) >= rule.minAmount;
  }

  /**
   * The wallet's balance of `mint`, or, when its associated account alone holds at least
   * `enough`, that account's balance (all a rule needs to know). Otherwise one
   * getTokenAccountsByOwner call for the sum over all its accounts of that mint.
   */
  tokenBalance(wallet: string, mint: string, enough: bigint): Promise<bigint> {
    const key = `${wallet} ${mint}`;
    const known = this.balances.get(key);
    if (known) return known;
    const associated = this.associated.get(key);
    if (associated !== undefined && associated >= enough) return Promise.resolve(associated);
    const balance = this.reader().tokenBalance(wallet, mint, this.deadline);
    this.balances.set(key, balance);
    return balance;
  }

  /** The wallet's token accounts under `program`, read once (the NFT and group rules share them). */
  holdings(wallet: string, program: Address): Promise<TokenHolding[]> {
    const key = `${wallet} ${program}`;
    const known = this.tokenAccounts.get(key);
    if (known) return known;
    const found = this.reader().tokenAccounts(wallet, program, this.deadline);
    this.tokenAccounts.set(key, found);
    return found;
  }

  nftMints(wallet: string): Promise<string[]> {
    const known = this.nfts.get(wallet);
    if (known) return known;
    const mints = Promise.all([this.holdings(wallet, TOKEN_PROGRAM), this.holdings(wallet, TOKEN_2022_PROGRAM)]).then((perProgram) => [
      ...new Set(perProgram.flat().flatMap(({ mint, amount, decimals }) => (amount === 1n && decimals === 0 ? [mint] : []))),
    ]);
    this.nfts.set(wallet, mints);
    return mints;
  }

  /** The wallet's assets as the DAS API lists them, every page; null when the provider does not serve DAS. */
  assets(wallet: string): Promise<DasAsset[] | null> {
    const known = this.dasAssets.get(wallet);
    if (known) return known;
    const found = this.reader().dasAssets(wallet, this.deadline);
    this.dasAssets.set(wallet, found);
    return found;
  }

  /**
   * Whether the wallet holds an asset of the verified `collection` with all `traits`: through DAS
   * (compressed NFTs, Core assets and token-metadata NFTs alike, attributes as DAS indexed them).
   * Without DAS only token-metadata NFTs are seen, whose attributes live in off-chain JSON that
   * is not fetched: a rule with traits then matches nothing.
   */
  async holdsOfCollection(wallet: string, collection: string, traits: Readonly<Record<string, string>> | undefined): Promise<boolean> {
    const assets = await this.assets(wallet);
    if (assets) return assets.some((asset) => assetMatches(asset, collection, traits));
    if (traits) return false;
    return (await this.collectionsHeld(wallet)).has(collection);
  }

  /** Reads the group of every Token-2022 mint held (balance above 0) so far, in calls of up to 100 accounts. */
  async prefetchGroups(): Promise<void> {
    const all = new Set<string>();
    for (const [key, holdings] of this.tokenAccounts) {
      if (!key.endsWith(` ${TOKEN_2022_PROGRAM}`)) continue;
      for (const { mint, amount } of await holdings) if (amount > 0n && !this.mintGroups.has(mint)) all.add(mint);
    }
    if (all.size > 0) await this.readGroups([...all]);
  }

  /** The groups whose member tokens the wallet holds now (a balance above 0 of a member mint). */
  async groupsHeld(wallet: string): Promise<Set<string>> {
    const held = (await this.holdings(wallet, TOKEN_2022_PROGRAM)).filter(({ amount }) => amount > 0n).map(({ mint }) => mint);
    const unknown = [...new Set(held.filter((mint) => !this.mintGroups.has(mint)))];
    if (unknown.length > 0) await this.readGroups(unknown);
    const groups = new Set<string>();
    for (const mint of held) {
      const group = this.mintGroups.get(mint);
      if (group) groups.add(group);
    }
    return groups;
  }

  private async readGroups(mints: string[]): Promise<void> {
    const found = await this.reader().mintGroups(mints, this.deadline);
    for (const mint of mints) this.mintGroups.set(mint, found.get(mint) ?? null);
  }

  /** Reads the collections of every NFT seen so far, in calls of up to 100 accounts. */
  async prefetchCollections(): Promise<void> {
    const all = new Set<string>();
    for (const mints of this.nfts.values()) for (const mint of await mints) if (!this.collections.has(mint)) all.add(mint);
    if (all.size === 0) return;
    const found = await this.reader().verifiedCollections([...all], this.deadline);
    for (const mint of all) this.collections.set(mint, found.get(mint) ?? null);
  }

  async collectionsHeld(wallet: string): Promise<Set<string>> {
    const mints = await this.nftMints(wallet);
    const unknown = mints.filter((mint) => !this.collections.has(mint));
    if (unknown.length > 0) {
      const found = await this.reader().verifiedCollections(unknown, this.deadline);
      for (const mint of unknown) this.collections.set(mint, found.get(mint) ?? null);
    }
    const held = new Set<string>();
    for (const mint of mints) {
      const collection = this.collections.get(mint);
      if (collection) held.add(collection);
    }
    return held;
  }
}

function readsChain(rule: ClaimRule): boolean {
  return (
    rule.kind === 'token' ||
    rule.kind === 'collection' ||
    rule.kind === 'group' ||
    ((rule.kind === 'all' || rule.kind === 'any') && rule.rules.some(readsChain))
  );
}

/** `the traits Background "Blue" and Eyes "Laser"`: a rule's traits, as the refusal says them. */
export function traitsInWords(traits: Readonly<Record<string, string>>): string {
  const parts = Object.entries(traits)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([type, value]) => `${type} "${value}"`);
  const list = parts.length <= 1 ? (parts[0] ?? '') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
  return `${parts.length === 1 ? 'the trait' : 'the traits'} ${list}`;
}

/** The mints of the policy's token rules. */
export function tokenMints(rule: ClaimRule, into = new Set<string>()): Set<string> {
  if (rule.kind === 'token') into.add(rule.mint);
  if (rule.kind === 'all' || rule.kind === 'any') for (const part of rule.rules) tokenMints(part, into);
  return into;
}

function hasRule(rule: ClaimRule, kind: ClaimRule['kind']): boolean {
  return rule.kind === kind || ((rule.kind === 'all' || rule.kind === 'any') && rule.rules.some((part) => hasRule(part, kind)));
}

/** Runs `work` over `items`, at most `limit` at a time; the first failure rejects. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<unknown>): Promise<void> {
  // One iterator shared by every lane: each item is taken once, by whichever lane is free.
  const queue = items.values();
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    for (const item of queue) await work(item);
  });
  await Promise.all(lanes);
}

/** The policy as the console shows it: its shape, the mints and collections, and for allowlists only how many addresses. */
export type PolicyDescription =
  | { kind: 'allow'; source: 'inline' | 'file'; addresses: number }
  | { kind: 'token'; mint: string; minAmount: string }
  | { kind: 'collection'; collection: string; traits?: Record<string, string> }
  | { kind: 'group'; group: string }
  | { kind: 'all' | 'any'; rules: PolicyDescription[] };

export function describeRule(rule: ClaimRule): PolicyDescription {
  switch (rule.kind) {
    case 'allow':
      return { kind: 'allow', source: rule.source, addresses: rule.addresses.size };
    case 'token':
      return { kind: 'token', mint: rule.mint, minAmount: rule.minAmount.toString() };
    case 'collection':
      return rule.traits
        ? { kind: 'collection', collection: rule.collection, traits: { ...rule.traits } }
        : { kind: 'collection', collection: rule.collection };
    case 'group':
      return { kind: 'group', group: rule.group };
    case 'all':
    case 'any':
      return { kind: rule.kind, rules: rule.rules.map(describeRule) };
  }
}
