// What the eligibility rules read from the chain, through any Solana JSON-RPC provider
// (SOLANA_RPC_URL) with @solana/kit's RPC client: token balances, the NFTs a wallet holds, and the
// verified collection of each NFT. Every call runs under one deadline per check (retries
// included), and its answer is read within SOLANA_RPC_MAX_BYTES (./rpc-transport.ts); an RPC that
// fails, does not answer in time, or answers what does not decode is a ChainUnavailable, never a "no".
import { setMaxListeners } from 'node:events';
import { getMetadataAccountDataSerializer } from '@metaplex-foundation/mpl-token-metadata';
import {
  type Address,
  address,
  createSolanaRpcFromTransport,
  getAddressEncoder,
  getBase64Encoder,
  getProgramDerivedAddress,
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
} from '@solana/kit';
import { createBoundedRpcTransport, RpcAnswerTooLarge } from './rpc-transport';

export const TOKEN_PROGRAM = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const TOKEN_2022_PROGRAM = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
export const TOKEN_METADATA_PROGRAM = address('metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s');

/** getMultipleAccounts takes at most 100 addresses per call (the RPC's documented limit). */
export const MAX_ACCOUNTS_PER_CALL = 100;

/** The RPC failed, did not answer within the check's deadline, or answered what does not decode. */
export class ChainUnavailable extends Error {
  constructor(cause: unknown) {
    super(`the Solana RPC did not answer: ${describe(cause)}`, { cause });
    this.name = 'ChainUnavailable';
  }
}

/** One check's deadline: every RPC call (and retry) made for it must finish before it. */
export type Deadline = { signal: AbortSignal; at: number };

export function deadlineIn(ms: number): Deadline {
  const signal = AbortSignal.timeout(ms);
  // A round's many concurrent requests all listen to one deadline: not a leak.
  setMaxListeners(0, signal);
  return { signal, at: Date.now() + ms };
}

export type ChainReader = {
  /** The wallet's balance of `mint` in base units, summed over all its token accounts of that mint. */
  tokenBalance(owner: string, mint: string, deadline: Deadline): Promise<bigint>;
  /** The mints of the NFTs the wallet holds now: token accounts of amount 1 and decimals 0, Token and Token-2022. */
  nftMints(owner: string, deadline: Deadline): Promise<string[]>;
  /** For each mint, the collection its Metaplex metadata names and has verified (absent: none). */
  verifiedCollections(mints: string[], deadline: Deadline): Promise<Map<string, string>>;
  /** RPC requests sent so far (retries count): what the benchmark reports per claim. */
  readonly calls: number;
};

/** Attempts per RPC call: the first and up to two retries, as long as the deadline allows. */
const ATTEMPTS = 3;
const RETRY_PAUSE_MS = [100, 300];

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

export function createChainReader(url: string, options: { maxBytes: number }): ChainReader {
  const rpc = createSolanaRpcFromTransport(createBoundedRpcTransport({ url, maxBytes: options.maxBytes }));
  let calls = 0;

  /**
   * One RPC call with a bounded retry: a network error, an HTTP error (429, 5xx) or a JSON-RPC
   * server error is tried again after a short pause while the deadline leaves time; the abort
   * signal ends a hanging request at the deadline. An invalid-params answer is not retried.
   */
  async function call<T>(send: (signal: AbortSignal) => Promise<T>, deadline: Deadline): Promise<T> {
    let last: unknown;
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (deadline.signal.aborted) break;
      calls++;
      try {
        return await send(deadline.signal);
      } catch (error) {
        last = error;
        // Invalid params, and an answer past the size bound, would come back the same.
        if (isSolanaError(error, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS) || error instanceof RpcAnswerTooLarge || deadline.signal.aborted) break;
        const pause = RETRY_PAUSE_MS[attempt] ?? 0;
        if (attempt + 1 >= ATTEMPTS || Date.now() + pause >= deadline.at) break;
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
    throw last ?? new Error('deadline passed');
  }

  const unavailable = (error: unknown): never => {
    throw new ChainUnavailable(error);
  };

  const metadataSerializer = getMetadataAccountDataSerializer();

  return {
    get calls() {
      return calls;
    },

    async tokenBalance(owner, mint, deadline) {
      // With a mint filter the node searches the program that owns the mint, Token or Token-2022
      // (a mint lives under exactly one), so one call covers both programs.
      const answer = await call(
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

    async nftMints(owner, deadline) {
      try {
        const perProgram = await Promise.all(
          [TOKEN_PROGRAM, TOKEN_2022_PROGRAM].map((programId) =>
            call((abortSignal) => rpc.getTokenAccountsByOwner(address(owner), { programId }, { encoding: 'jsonParsed' }).send({ abortSignal }), deadline),
          ),
        );
        const mints = new Set<string>();
        for (const answer of perProgram) {
          for (const { mint, amount, decimals } of parsedTokenAccounts(answer)) {
            if (amount === '1' && decimals === 0) mints.add(mint);
          }
        }
        return [...mints];
      } catch (error) {
        throw new ChainUnavailable(error);
      }
    },

    async verifiedCollections(mints, deadline) {
      const found = new Map<string, string>();
      const pdas = await Promise.all(mints.map((mint) => metadataAddress(address(mint))));
      const batches: Promise<void>[] = [];
      for (let start = 0; start < mints.length; start += MAX_ACCOUNTS_PER_CALL) {
        const batchMints = mints.slice(start, start + MAX_ACCOUNTS_PER_CALL);
        const batchPdas = pdas.slice(start, start + MAX_ACCOUNTS_PER_CALL);
        batches.push(
          (async () => {
            const send = (abortSignal: AbortSignal) => rpc.getMultipleAccounts(batchPdas, { encoding: 'base64' }).send({ abortSignal });
            const answer = await call(send, deadline).catch(unavailable);
            const accounts = (answer as { value?: unknown } | null)?.value;
            if (!Array.isArray(accounts) || accounts.length !== batchPdas.length) {
              throw new ChainUnavailable(new MalformedAnswer('getMultipleAccounts', 'not one account (or null) per address asked'));
            }
            // The accounts come back in the order asked, one per mint.
            batchMints.forEach((mint, index) => {
              const account = accounts[index] as { owner?: unknown; data?: unknown } | null;
              if (!account || account.owner !== TOKEN_METADATA_PROGRAM) return;
              const data = Array.isArray(account.data) ? account.data[0] : undefined;
              if (typeof data !== 'string') throw new ChainUnavailable(new MalformedAnswer('getMultipleAccounts', 'account data that is not base64'));
              const collection = decodeVerifiedCollection(metadataSerializer, getBase64Encoder().encode(data) as Uint8Array, mint);
              if (collection) found.set(mint, collection);
            });
          })(),
        );
      }
      await Promise.all(batches);
      return found;
    },
  };
}

/**
 * The verified collection named by a Metaplex Metadata account, decoded with Metaplex's own codec
 * (mpl-token-metadata's generated serializer, so every layout version it knows is read as Metaplex
 * reads it). An account that does not decode, or that belongs to another mint, names none.
 */
function decodeVerifiedCollection(serializer: ReturnType<typeof getMetadataAccountDataSerializer>, bytes: Uint8Array, mint: string): string | undefined {
  try {
    const [metadata] = serializer.deserialize(bytes);
    if (metadata.mint !== mint || metadata.collection.__option !== 'Some') return undefined;
    const { verified, key } = metadata.collection.value;
    return verified ? key : undefined;
  } catch {
    return undefined;
  }
}

/** The Metaplex Metadata account of a mint: the PDA of ["metadata", program id, mint]. */
export async function metadataAddress(mint: Address): Promise<Address> {
  const encoder = getAddressEncoder();
  const [pda] = await getProgramDerivedAddress({
    programAddress: TOKEN_METADATA_PROGRAM,
    seeds: ['metadata', encoder.encode(TOKEN_METADATA_PROGRAM), encoder.encode(mint)],
  });
  return pda;
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
