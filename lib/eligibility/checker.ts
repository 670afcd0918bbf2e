// Whether a wallet meets CLAIM_POLICY now: the rules of policy.ts evaluated against the chain
// (chain.ts), with the missing requirement said in plain words, a short cache of positive answers
// for the claim path, and a batched form for the re-check rounds.

import type { Address } from '@solana/kit';
import { type ChainReader, ChainUnavailable, type Deadline, deadlineIn, newTally, type RequestTally } from './chain';
import type { ClaimRule } from './policy';

export type Verdict = { eligible: true } | { eligible: false; missing: string };

/** What one re-check round shares across its pages: the requests it sent, and each mint's program, found once. */
export type RoundReads = { tally: RequestTally; mintPrograms: Map<string, Promise<Address | null>> };

export function newRoundReads(): RoundReads {
  return { tally: newTally(), mintPrograms: new Map() };
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
    // Each check's own deadline per 16 wallets, plus the time the budget may pace this page's
    // requests over, twice (a round checks two pages at a time: recheck.ts).
    const requests = 1 + mints.size * (1 + wallets.length) + (collections ? 2 * wallets.length + Math.ceil(wallets.length / 10) : 0);
    const pacing = 2 * (this.chain?.budget.intervalMs ?? 0) * requests;
    const deadline = deadlineIn(this.options.timeoutMs * Math.max(1, Math.ceil(wallets.length / BATCH_CONCURRENCY)) + pacing, 'round', round.tally);
    const facts = new Facts(this.chain, deadline, round.mintPrograms);
    await Promise.all([...mints].map((mint) => facts.prefetchAssociatedBalances(wallets, mint)));
    if (collections) {
      await pool(wallets, BATCH_CONCURRENCY, (wallet) => facts.nftMints(wallet));
      await facts.prefetchCollections();
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
      const collections = await facts.collectionsHeld(wallet);
      return collections.has(rule.collection) ? undefined : `hold an NFT of the verified collection ${rule.collection}`;
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

  constructor(
    private readonly chain: ChainReader | undefined,
    private readonly deadline: Deadline,
    private readonly mintPrograms = new Map<string, Promise<Address | null>>(),
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

  nftMints(wallet: string): Promise<string[]> {
    const known = this.nfts.get(wallet);
    if (known) return known;
    const mints = this.reader().nftMints(wallet, this.deadline);
    this.nfts.set(wallet, mints);
    return mints;
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
  return rule.kind === 'token' || rule.kind === 'collection' || ((rule.kind === 'all' || rule.kind === 'any') && rule.rules.some(readsChain));
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
  | { kind: 'collection'; collection: string }
  | { kind: 'all' | 'any'; rules: PolicyDescription[] };

export function describeRule(rule: ClaimRule): PolicyDescription {
  switch (rule.kind) {
    case 'allow':
      return { kind: 'allow', source: rule.source, addresses: rule.addresses.size };
    case 'token':
      return { kind: 'token', mint: rule.mint, minAmount: rule.minAmount.toString() };
    case 'collection':
      return { kind: 'collection', collection: rule.collection };
    case 'all':
    case 'any':
      return { kind: rule.kind, rules: rule.rules.map(describeRule) };
  }
}
