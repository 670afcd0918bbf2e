// What the eligibility rules read from the chain, through any Solana JSON-RPC provider
// (SOLANA_RPC_URL) with @solana/kit's RPC client: token balances, the NFTs a wallet holds, the
// verified collection of each NFT, the assets the DAS API lists for a wallet (where the provider
// serves it: ./das.ts), and the Token-2022 group each mint is a member of. Every call runs under one deadline per check (retries
// included), and its answer is read within SOLANA_RPC_MAX_BYTES (./rpc-transport.ts); an RPC that
// fails, does not answer in time, or answers what does not decode is a ChainUnavailable, never a "no".
import { setMaxListeners } from 'node:events';
import { getMetadataAccountDataSerializer } from '@metaplex-foundation/mpl-token-metadata';
import {
  type Address,
  address,
  createSolanaRpcFromTransport,
  getBase64Encoder,
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
} from '@solana/kit';
import { getMintDecoder as getToken2022MintDecoder } from '@solana-program/token-2022';
import type { Logger } from '../log';
import {
  associatedAmount,
  associatedTokenAddress,
  decodeGroupMembership,
  decodeVerifiedCollection,
  metadataAddress,
  type RawAccount,
  TOKEN_2022_PROGRAM,
  TOKEN_METADATA_PROGRAM,
  TOKEN_PROGRAM,
} from './accounts';
import {
  assetsByOwnerParams,
  DAS_MAX_ASSETS,
  DAS_MIN_PAGE_LIMIT,
  DAS_PAGE_LIMIT,
  type DasAsset,
  DasNotServed,
  type DasPage,
  dasResult,
  readAssetPage,
} from './das';
import { RpcBudget, type RpcLane } from './rpc-budget';
import { createBoundedRpcTransport, RpcAnswerTooLarge } from './rpc-transport';

/** getMultipleAccounts takes at most 100 addresses per call (the RPC's documented limit). */
export const MAX_ACCOUNTS_PER_CALL = 100;

/** The RPC failed, did not answer within the check's deadline, or answered what does not decode. */
export class ChainUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the Solana RPC did not answer: ${describe(cause)}`, { cause });
    this.name = 'ChainUnavailable';
  }
}

/** Requests sent for one piece of work (a re-check round), by method: what the round reports. */
export type RequestTally = { requests: number; byMethod: Record<string, number> };

export function newTally(): RequestTally {
  return { requests: 0, byMethod: {} };
}

/**
 * One check's deadline: every RPC call (and retry) made for it must finish before it, its turn in
 * the RPC budget included. `lane` says who waits for that turn (claims go first); `tally` counts
 * the requests sent under it.
 */
export type Deadline = { signal: AbortSignal; at: number; lane: RpcLane; tally?: RequestTally };

export function deadlineIn(ms: number, lane: RpcLane = 'claim', tally?: RequestTally): Deadline {
  ms = Math.ceil(ms);
  const signal = AbortSignal.timeout(ms);
  // A round's many concurrent requests all listen to one deadline: not a leak.
  setMaxListeners(0, signal);
  return { signal, at: Date.now() + ms, lane, tally };
}

export type ChainReader = {
  /** The wallet's balance of `mint` in base units, summed over all its token accounts of that mint. */
  tokenBalance(owner: string, mint: string, deadline: Deadline): Promise<bigint>;
  /**
   * The wallet's token accounts under one token program (one getTokenAccountsByOwner, jsonParsed):
   * its NFTs (amount 1, decimals 0, on Token and Token-2022) and its Token-2022 holdings are read from these.
   */
  tokenAccounts(owner: string, program: Address, deadline: Deadline): Promise<TokenHolding[]>;
  /**
   * Every asset the DAS API lists for the wallet (getAssetsByOwner, DAS_PAGE_LIMIT a page, paged
   * until done), burnt ones left out; null when the provider does not serve DAS (found once, then
   * remembered: no more DAS requests are sent, and it is logged once).
   */
  dasAssets(owner: string, deadline: Deadline): Promise<DasAsset[] | null>;
  /** Whether SOLANA_RPC_URL serves the DAS API: null until a DAS request has been answered. */
  readonly servesDas: boolean | null;
  /**
   * For each mint, the group its Token-2022 group member extension (in the mint itself) names
   * (absent: none), read 100 mints per getMultipleAccounts call.
   */
  mintGroups(mints: string[], deadline: Deadline): Promise<Map<string, string>>;
  /** For each mint, the collection its Metaplex metadata names and has verified (absent: none). */
  verifiedCollections(mints: string[], deadline: Deadline): Promise<Map<string, string>>;
  /** The token program that owns `mint` (Token or Token-2022); null when there is no such mint. One getAccountInfo. */
  mintProgram(mint: string, deadline: Deadline): Promise<Address | null>;
  /**
   * Each owner's balance of `mint` in its associated token account under `program` (0 when it has
   * none): a lower bound of its balance, read 100 accounts per getMultipleAccounts call.
   */
  associatedBalances(owners: string[], mint: string, program: Address, deadline: Deadline): Promise<Map<string, bigint>>;
  /** RPC requests sent so far (retries count): what the benchmark reports per claim. */
  readonly calls: number;
  /** The instance's one RPC budget: every request above waits for its turn in it. */
  readonly budget: RpcBudget;
};

/** Attempts per RPC call: the first and up to two retries, as long as the deadline allows. */
const ATTEMPTS = 3;
const RETRY_PAUSE_MS = [100, 300];
/** After a 429 without Retry-After: wait this long, doubling each time (at most 4 s), while the deadline allows. */
const THROTTLED_BACKOFF_MS = 500;

/** An answer that is not what the RPC's documentation says the method returns. */
class MalformedAnswer extends Error {
  constructor(method: string, what: string) {
    super(`malformed ${method} answer: ${what}`);
    this.name = 'MalformedAnswer';
  }
}

/** A token amount as the RPC writes it: a u64 in decimal digits, nothing else ("0x10", "-5", "1e3" are refused). */
const AMOUNT = /^\d+$/;

type ParsedTokenAccount = { mint: string; owner: string; amount: string; decimals: number };

/** A token account as a rule reads it: its mint, its amount in base units, the mint's decimals. */
export type TokenHolding = { mint: string; amount: bigint; decimals: number };

/** The token accounts of a jsonParsed getTokenAccountsByOwner answer; throws MalformedAnswer on any other shape. */
function parsedTokenAccounts(answer: unknown): ParsedTokenAccount[] {
  const bad = (what: string) => new MalformedAnswer('getTokenAccountsByOwner', what);
  const value = (answer as { value?: unknown } | null)?.value;
  if (!Array.isArray(value)) throw bad('no list of accounts');
  return value.map((entry) => {
    const info = (entry as { account?: { data?: { parsed?: { info?: Record<string, unknown> } } } } | null)?.account?.data?.parsed?.info;
    const tokenAmount = info?.tokenAmount as { amount?: unknown; decimals?: unknown } | undefined;
    if (!info || typeof info.mint !== 'string' || typeof info.owner !== 'string' || !tokenAmount) throw bad('an account without parsed token data');
    const { amount, decimals } = tokenAmount;
    if (typeof amount !== 'string' || !AMOUNT.test(amount)) throw bad('a token amount that is not decimal digits');
    if (typeof decimals !== 'number' && typeof decimals !== 'bigint') throw bad('token decimals that are not a number');
    return { mint: info.mint, owner: info.owner, amount, decimals: Number(decimals) };
  });
}

export function createChainReader(url: string, options: { maxBytes: number; rps: number; dasRps?: number; log?: Pick<Logger, 'warn'> }): ChainReader {
  const transport = createBoundedRpcTransport({ url, maxBytes: options.maxBytes });
  const rpc = createSolanaRpcFromTransport(transport);
  const budget = new RpcBudget(options.rps);
  // Providers limit DAS apart from the rest (Helius: 2 a second on the free plan, against 10): a
  // DAS request goes at a moment both this budget and the instance's allow.
  const dasBudget = options.dasRps ? new RpcBudget(options.dasRps) : undefined;
  let calls = 0;
  let servesDas: boolean | null = null;
  let noDasLogged = false;
  let dasRequestId = 0;

  /**
   * One RPC call, its turn taken in the instance's budget first (claims before rounds; a DAS
   * request at a moment `ownBudget`, SOLANA_DAS_RPS, allows too), with a
   * bounded retry: a network error, an HTTP error (5xx) or a JSON-RPC server error is tried again
   * after a short pause while the deadline leaves time; the abort signal ends a hanging request
   * (or a wait for a turn) at the deadline. An invalid-params answer is not retried. A 429 holds
   * the whole budget for its Retry-After (else a growing back-off) and is tried again as long as
   * the deadline allows: at the deadline it is an outage (503), never a "no".
   */
  async function call<T>(method: string, send: (signal: AbortSignal) => Promise<T>, deadline: Deadline, ownBudget?: RpcBudget): Promise<T> {
    let last: unknown;
    let failures = 0;
    let throttled = 0;
    while (!deadline.signal.aborted) {
      try {
        await budget.take(deadline.lane, deadline.signal, ownBudget);
      } catch (error) {
        last ??= error;
        break;
      }
      calls++;
      if (deadline.tally) {
        deadline.tally.requests++;
        deadline.tally.byMethod[method] = (deadline.tally.byMethod[method] ?? 0) + 1;
      }
      try {
        return await send(deadline.signal);
      } catch (error) {
        last = error;
        // Invalid params, a method the provider does not serve, and an answer past the size bound, would come back the same.
        if (
          isSolanaError(error, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS) ||
          error instanceof DasNotServed ||
          error instanceof RpcAnswerTooLarge ||
          deadline.signal.aborted
        )
          break;
        const retryAfter = tooManyRequests(error);
        if (retryAfter !== undefined) {
          const wait = retryAfter ?? Math.min(4000, THROTTLED_BACKOFF_MS * 2 ** throttled);
          throttled++;
          budget.hold(wait);
          ownBudget?.hold(wait);
          if (Date.now() + wait >= deadline.at) break;
          continue;
        }
        const pause = RETRY_PAUSE_MS[failures] ?? 0;
        failures++;
        if (failures >= ATTEMPTS || Date.now() + pause >= deadline.at) break;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
    throw last ?? new Error('deadline passed');
  }

  const unavailable = (error: unknown): never => {
    throw new ChainUnavailable(error);
  };

  /**
   * The accounts at `addresses`, in the order asked (null where none is), read
   * MAX_ACCOUNTS_PER_CALL to a getMultipleAccounts call, the calls side by side (the budget paces them).
   */
  async function accountsOf(addresses: Address[], deadline: Deadline): Promise<(RawAccount | null)[]> {
    const batches: Promise<(RawAccount | null)[]>[] = [];
    for (let start = 0; start < addresses.length; start += MAX_ACCOUNTS_PER_CALL) {
      const batch = addresses.slice(start, start + MAX_ACCOUNTS_PER_CALL);
      batches.push(
        (async () => {
          const send = (abortSignal: AbortSignal) => rpc.getMultipleAccounts(batch, { encoding: 'base64' }).send({ abortSignal });
          const answer = await call('getMultipleAccounts', send, deadline).catch(unavailable);
          const accounts = (answer as { value?: unknown } | null)?.value;
          if (!Array.isArray(accounts) || accounts.length !== batch.length) {
            throw new ChainUnavailable(new MalformedAnswer('getMultipleAccounts', 'not one account (or null) per address asked'));
          }
          return accounts as (RawAccount | null)[];
        })(),
      );
    }
    return (await Promise.all(batches)).flat();
  }

  const metadataSerializer = getMetadataAccountDataSerializer();

  async function tokenAccounts(owner: string, programId: Address, deadline: Deadline): Promise<TokenHolding[]> {
    const answer = await call(
      'getTokenAccountsByOwner',
      (abortSignal) => rpc.getTokenAccountsByOwner(address(owner), { programId }, { encoding: 'jsonParsed' }).send({ abortSignal }),
      deadline,
    ).catch(unavailable);
    try {
      return parsedTokenAccounts(answer)
        .filter((account) => account.owner === owner)
        .map(({ mint, amount, decimals }) => ({ mint, amount: BigInt(amount), decimals }));
    } catch (error) {
      throw new ChainUnavailable(error);
    }
  }

  /** One page of getAssetsByOwner, sent as DAS providers take it: params as an object, not a list. */
  async function assetPage(owner: string, position: { cursor?: string; page?: number }, limit: number, deadline: Deadline) {
    const params = assetsByOwnerParams(owner, position, limit);
    const result = await call(
      'getAssetsByOwner',
      async (signal) => dasResult(await transport({ payload: { jsonrpc: '2.0', id: String(++dasRequestId), method: 'getAssetsByOwner', params }, signal })),
      deadline,
      dasBudget,
    );
    servesDas = true;
    const page = readAssetPage(result, owner);
    if (typeof page === 'string') throw new ChainUnavailable(new MalformedAnswer('getAssetsByOwner', page));
    return page;
  }

  return {
    get calls() {
      return calls;
    },
    budget,

    async tokenBalance(owner, mint, deadline) {
      // With a mint filter the node searches the program that owns the mint, Token or Token-2022
      // (a mint lives under exactly one), so one call covers both programs.
      const answer = await call(
        'getTokenAccountsByOwner',
        (abortSignal) => rpc.getTokenAccountsByOwner(address(owner), { mint: address(mint) }, { encoding: 'jsonParsed' }).send({ abortSignal }),
        deadline,
      ).then(
        (accounts) => ({ accounts }),
        (error: unknown) => {
          // A mint that does not exist has no holders: a "no", not an outage.
          if (isSolanaError(error, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS) && /could not find mint/i.test(serverMessage(error))) return { noSuchMint: true };
          throw new ChainUnavailable(error);
        },
      );
      if ('noSuchMint' in answer) return 0n;
      let total = 0n;
      try {
        for (const account of parsedTokenAccounts(answer.accounts)) {
          if (account.mint === mint && account.owner === owner) total += BigInt(account.amount);
        }
      } catch (error) {
        throw new ChainUnavailable(error);
      }
      return total;
    },

    get servesDas() {
      return servesDas;
    },

    tokenAccounts,

    async dasAssets(owner, deadline) {
      if (servesDas === false) return null;
      const assets: DasAsset[] = [];
      let position: { cursor?: string; page?: number } = {};
      let limit = DAS_PAGE_LIMIT;
      // Items read so far (a multiple of every limit used: each is half the one before).
      let read = 0;
      try {
        for (;;) {
          let page: DasPage;
          try {
            page = await assetPage(owner, position, limit, deadline);
          } catch (error) {
            // A page of 1,000 richly described assets can outgrow SOLANA_RPC_MAX_BYTES: the same
            // place is asked again in pages half the size.
            if (!(error instanceof RpcAnswerTooLarge) || limit <= DAS_MIN_PAGE_LIMIT) throw error;
            limit /= 2;
            if (position.page !== undefined) position = { page: read / limit + 1 };
            continue;
          }
          assets.push(...page.assets);
          read += page.count;
          if (page.count < limit) return assets;
          if (read >= DAS_MAX_ASSETS) {
            throw new ChainUnavailable(new MalformedAnswer('getAssetsByOwner', `more than ${DAS_MAX_ASSETS} assets for one wallet`));
          }
          // Keyset where the provider offers it (its answer carries a cursor), page numbers otherwise.
          if (page.cursor !== null) {
            if (page.cursor === position.cursor) throw new ChainUnavailable(new MalformedAnswer('getAssetsByOwner', 'the same cursor twice'));
            position = { cursor: page.cursor };
          } else {
            position = { page: read / limit + 1 };
          }
        }
      } catch (error) {
        if (!(error instanceof DasNotServed)) throw error instanceof ChainUnavailable ? error : new ChainUnavailable(error);
        servesDas = false;
        if (!noDasLogged) {
          noDasLogged = true;
          options.log?.warn(
            { event: 'das_not_served' },
            'the Solana RPC does not serve the DAS API (getAssetsByOwner): collection rules count token-metadata NFTs only, not compressed NFTs or Core assets',
          );
        }
        return null;
      }
    },

    async mintGroups(mints, deadline) {
      const groups = new Map<string, string>();
      const decoder = getToken2022MintDecoder();
      (
        await accountsOf(
          mints.map((mint) => address(mint)),
          deadline,
        )
      ).forEach((account, index) => {
        const mint = mints[index] as string;
        if (!account || account.owner !== TOKEN_2022_PROGRAM) return;
        const data = Array.isArray(account.data) ? account.data[0] : undefined;
        if (typeof data !== 'string') throw new ChainUnavailable(new MalformedAnswer('getMultipleAccounts', 'account data that is not base64'));
        const group = decodeGroupMembership(decoder, getBase64Encoder().encode(data) as Uint8Array, mint);
        if (group) groups.set(mint, group);
      });
      return groups;
    },

    async verifiedCollections(mints, deadline) {
      const found = new Map<string, string>();
      const pdas = await Promise.all(mints.map((mint) => metadataAddress(address(mint))));
      // The accounts come back in the order asked, one per mint.
      (await accountsOf(pdas, deadline)).forEach((account, index) => {
        const mint = mints[index] as string;
        if (!account || account.owner !== TOKEN_METADATA_PROGRAM) return;
        const data = Array.isArray(account.data) ? account.data[0] : undefined;
        if (typeof data !== 'string') throw new ChainUnavailable(new MalformedAnswer('getMultipleAccounts', 'account data that is not base64'));
        const collection = decodeVerifiedCollection(metadataSerializer, getBase64Encoder().encode(data) as Uint8Array, mint);
        if (collection) found.set(mint, collection);
      });
      return found;
    },

    async mintProgram(mint, deadline) {
      const answer = await call(
        'getAccountInfo',
        (abortSignal) => rpc.getAccountInfo(address(mint), { encoding: 'base64', dataSlice: { offset: 0, length: 0 } }).send({ abortSignal }),
        deadline,
      ).catch(unavailable);
      const value = (answer as { value?: unknown } | null)?.value;
      if (value === undefined) throw new ChainUnavailable(new MalformedAnswer('getAccountInfo', 'no value'));
      const owner = (value as { owner?: unknown } | null)?.owner;
      return owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM ? (owner as Address) : null;
    },

    async associatedBalances(owners, mint, program, deadline) {
      const balances = new Map<string, bigint>();
      // One after another, not all at once: each derivation's curve check is ~0.5 ms of synchronous
      // JavaScript, and 100 of them back to back would hold the event loop (and the claims) for 50 ms.
      const atas: Address[] = [];
      for (const owner of owners) atas.push(await associatedTokenAddress(address(owner), address(mint), program));
      (await accountsOf(atas, deadline)).forEach((account, index) => {
        const owner = owners[index] as string;
        const amount = account ? associatedAmount(account, owner, mint, program) : 0n;
        if (amount === undefined) throw new ChainUnavailable(new MalformedAnswer('getMultipleAccounts', 'account data that is not base64'));
        balances.set(owner, amount);
      });
      return balances;
    },
  };
}

/**
 * undefined: not a 429. Otherwise how long the provider asked us to wait, in ms (Retry-After in
 * seconds or as an HTTP date), or null when it did not say.
 */
function tooManyRequests(error: unknown): number | null | undefined {
  if (!isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR) || error.context.statusCode !== 429) return undefined;
  const headers = error.context.headers as Headers | undefined;
  const value = typeof headers?.get === 'function' ? headers.get('retry-after') : null;
  if (value === null || value.trim() === '') return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}

function serverMessage(error: unknown): string {
  const context = (error as { context?: { __serverMessage?: unknown } }).context;
  return typeof context?.__serverMessage === 'string' ? context.__serverMessage : (error as Error).message;
}

/** A short reason for the logs; never the URL (it may carry an API key). */
function describe(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return 'no answer in time';
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/https?:\/\/\S+/g, '<rpc>').slice(0, 200);
}
