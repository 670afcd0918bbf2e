// A local stand-in for a Solana JSON-RPC endpoint: a plain HTTP server on 127.0.0.1 answering the
// three methods the eligibility checks use, over account bytes held by `litesvm` (the Solana
// runtime in-process, with the real SPL Token and Token-2022 programs). Token mints and accounts
// are made by sending real transactions to those programs; Metaplex Metadata accounts (whose
// program litesvm does not ship) are encoded with Metaplex's own codec and stored under the
// Token Metadata program id.
//
// What the Solana RPC documentation says, and what this server does:
// - JSON-RPC 2.0 over HTTP POST: `{"jsonrpc":"2.0","id":…,"method":…,"params":[…]}` →
//   `{"jsonrpc":"2.0","id":…,"result":…}` or `{"jsonrpc":"2.0","id":…,"error":{"code","message"}}`;
//   a batch (array) gets an array of answers.
// - `getAccountInfo(address, {encoding})` → `{context:{slot}, value: account | null}`;
//   `getMultipleAccounts(addresses, {encoding})` → `{context, value: [account | null, …]}`, at most
//   100 addresses ("Too many inputs provided; max 100", -32602);
//   `getTokenAccountsByOwner(owner, {mint} | {programId}, {encoding})` →
//   `{context, value: [{pubkey, account}]}`. With `{mint}` the node searches the program that owns
//   the mint (Token or Token-2022); an unknown mint is -32602 "Invalid param: could not find mint";
//   a programId that is not a token program is -32602 "Invalid param: unrecognized Token program id".
// - account: `{data, executable, lamports, owner, rentEpoch, space}`; `data` is `[<base64>, "base64"]`,
//   or for token accounts under `jsonParsed` `{program: "spl-token" | "spl-token-2022", parsed:
//   {type: "account", info: {isNative, mint, owner, state, tokenAmount: {amount, decimals,
//   uiAmount, uiAmountString}}}, space}` (other accounts fall back to base64). `rentEpoch` of a
//   rent-exempt account is u64::MAX, written as a bare JSON number as validators do.
//
// - `getProgramAccounts(program, {encoding, dataSlice, filters: [{dataSize}, {memcmp: {offset, bytes}}]})`
//   → `[{pubkey, account}]` (filters on the mint at offset 0 or the owner at offset 32 of token
//   accounts); Helius's paged `getProgramAccountsV2(program, {…, limit ≤ 10,000, paginationKey})` →
//   `{accounts, paginationKey}` (null after the last page).
//
// Stand-in controls: `outage = 'refuse' | 'hang' | 'http503'` (connections reset, requests never
// answered, or HTTP 503), `delayMs` (every answer waits this long), `calls` (each method called),
// `rewrite` (each answer, as JSON, passes through it before it is sent: a malformed or oversized
// answer), `drip` (the answer's bytes trickle out a few at a time). Like a provider's rate limit:
// `limit = {perSecond, retryAfterSeconds}` answers HTTP 429 (with Retry-After when given) to a
// request past `perSecond` answered in any one-second window, and `tooMany(n, retryAfterSeconds)`
// answers the next n requests 429; `arrivals` records when each request came (performance.now(),
// method, first parameter) and `throttled` how many got a 429.
//
// Every change (a transaction, bytes written) tells `changeListeners` which accounts it touched:
// the PubSub stand-in (solana-pubsub.ts) serves `programSubscribe` over the same accounts.
//
// The DAS API (Metaplex's Digital Asset Standard, as Helius and others serve it on the same
// endpoint): `getAssetsByOwner({ownerAddress, limit ≤ 1000, page | cursor, options:
// {showUnverifiedCollections}})` → `{total, limit, page | cursor, items: [asset]}`, the assets
// sorted by id. A request naming a `page` (1-based) is paged by number; one naming no page is
// paged by keyset, the answer carrying `cursor` (the position after its last item) for the next
// request (`dasKeyset = false`: a provider that pages by number only, answering page 1 without a
// cursor). Items: compressed NFTs and Metaplex Core assets added with `addCompressedNft` /
// `addCoreAsset`, and each token-metadata NFT the owner holds now (from the chain state: its token
// account and its Metadata account), in DAS's shape (`interface`, `id`, `content.metadata
// .attributes`, `compression.compressed`, `grouping: [{group_key: "collection", group_value,
// verified}]`, `ownership.owner`, `burnt`). Without `showUnverifiedCollections` an unverified
// grouping is left out and `verified` is not written, as the reference implementation does. `das
// = false` makes it a provider without DAS: -32601 "Method not found".
//
// Token-2022 groups: `createTokenGroup` writes a group mint (GroupPointer + TokenGroup extensions)
// and `createGroupMember` a member mint (GroupMemberPointer + TokenGroupMember) with a holder's
// token account, their bytes made by the Token-2022 program's own codecs (@solana-program/token-2022).
//
// Token accounts made through this stand-in (transactions, or bytes written with the official
// codec by `putTokenAccount`, for the 100,000 holders of the benchmark) are indexed by owner and
// mint, so that reads by owner or mint do not scan every account; each answer is read from the
// account's bytes in litesvm as it is now.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getMetadataAccountDataSerializer, Key, TokenStandard } from '@metaplex-foundation/mpl-token-metadata';
import { none, some, publicKey as umiPublicKey } from '@metaplex-foundation/umi';
import {
  type Address,
  address,
  appendTransactionMessageInstructions,
  createKeyPairSignerFromBytes,
  createTransactionMessage,
  generateKeyPairSigner,
  getAddressDecoder,
  getAddressEncoder,
  getBase64Decoder,
  getProgramDerivedAddress,
  type Instruction,
  type KeyPairSigner,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  signTransactionMessageWithSigners,
  type TransactionSigner,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getBurnInstruction,
  getInitializeAccount3Instruction,
  getInitializeMint2Instruction,
  getMintDecoder,
  getMintToInstruction,
  getTokenDecoder,
  getTokenEncoder,
  getTransferInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import {
  type ExtensionArgs,
  extension,
  findAssociatedTokenPda as findToken2022AssociatedTokenPda,
  getMintEncoder as getToken2022MintEncoder,
  getTokenDecoder as getToken2022TokenDecoder,
  getTokenEncoder as getToken2022TokenEncoder,
} from '@solana-program/token-2022';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';

export const TOKEN_2022_PROGRAM_ADDRESS = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
export const TOKEN_METADATA_PROGRAM_ADDRESS = address('metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s');
export type TokenProgram = 'token' | 'token-2022';

const MINT_SIZE = 82n;
const ACCOUNT_SIZE = 165n;
const U64_MAX_TEXT = '18446744073709551615';
const RENT_EPOCH_MARK = '"__rent_epoch_u64_max__"';

type Outage = 'refuse' | 'hang' | 'http503' | null;

/** An attribute of an asset's off-chain JSON, as DAS indexes it. */
export type DasAttribute = { trait_type: string; value: string | number };
/** An asset the DAS API lists (compressed NFTs and Core assets, which have no token account). */
type StoredAsset = { id: string; owner: string; json: Record<string, unknown>; collection?: { address: string; verified: boolean } };

/** One request as it arrived: when (performance.now()), the method (the first of a batch), and its first parameter. */
export type Arrival = { at: number; method: string; first: unknown; throttled: boolean };

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class SolanaRpcStandIn {
  readonly svm = new LiteSVM();
  /** The methods called, in order (each entry of a batch counts). */
  readonly calls: string[] = [];
  /** HTTP requests received (answered or not). */
  requests = 0;
  outage: Outage = null;
  delayMs = 0;
  /** Each answer (the JSON-RPC object, or the array of a batch) goes through this before it is sent, with the method called. */
  rewrite: ((answer: unknown, method: string) => unknown) | null = null;
  /** Sends each answer `bytes` at a time, one chunk every `everyMs` (chunked, no Content-Length). */
  drip: { bytes: number; everyMs: number } | null = null;
  /** A provider's rate limit: past `perSecond` requests answered in any one-second window, HTTP 429. */
  limit: { perSecond: number; retryAfterSeconds?: number } | null = null;
  /** Every request, as it arrived. */
  readonly arrivals: Arrival[] = [];
  /** Requests answered 429. */
  throttled = 0;
  /** Bytes of JSON answered (200s). */
  answeredBytes = 0;
  /** false: a provider without the DAS API (getAssetsByOwner answers -32601). */
  das = true;
  /** false: DAS paged by page number only (no cursor in answers). */
  dasKeyset = true;
  private readonly assets: StoredAsset[] = [];
  /** mint → the attributes of a token-metadata NFT's off-chain JSON, as DAS indexed them. */
  private readonly nftAttributes = new Map<string, DasAttribute[]>();
  /** mint → its Metadata account (the PDA), for the NFTs made here. */
  private readonly metadataPdas = new Map<string, Address>();
  private tooManyLeft = 0;
  private tooManyRetryAfter: number | undefined;
  /** Arrival times of the requests answered (not 429) within the last second. */
  private readonly recent: number[] = [];
  private readonly byOwner = new Map<string, Set<Address>>();
  private readonly byMint = new Map<string, Set<Address>>();
  private readonly sockets = new Set<Socket>();
  /** Told of the accounts each change touched (a transaction, bytes written): the PubSub stand-in (solana-pubsub.ts) notifies from it. */
  readonly changeListeners = new Set<(accounts: Address[]) => void>();
  private payer!: KeyPairSigner;

  private constructor(private readonly server: http.Server) {}

  static async start(options: { delayMs?: number } = {}): Promise<SolanaRpcStandIn> {
    const server = http.createServer();
    const standIn = new SolanaRpcStandIn(server);
    standIn.delayMs = options.delayMs ?? 0;
    standIn.payer = await generateKeyPairSigner();
    standIn.svm.airdrop(standIn.payer.address, lamports(1_000_000_000_000n));
    server.on('connection', (socket) => {
      if (standIn.outage === 'refuse') return void socket.destroy();
      standIn.sockets.add(socket);
      socket.on('close', () => standIn.sockets.delete(socket));
    });
    server.on('request', (request, response) => void standIn.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return standIn;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** How many calls of `method` (or of all methods) were answered or attempted so far. */
  count(method?: string): number {
    return method ? this.calls.filter((call) => call === method).length : this.calls.length;
  }

  /** Answers the next `count` requests with HTTP 429 (and Retry-After, when given). */
  tooMany(count: number, retryAfterSeconds?: number): void {
    this.tooManyLeft = count;
    this.tooManyRetryAfter = retryAfterSeconds;
  }

  /** The most requests answered (not 429) in any one-second window of `arrivals` (from index `from`). */
  busiestSecond(from = 0): number {
    const times = this.arrivals
      .slice(from)
      .filter((arrival) => !arrival.throttled)
      .map((arrival) => arrival.at);
    let most = 0;
    let start = 0;
    for (let end = 0; end < times.length; end++) {
      while (times[end]! - times[start]! >= 1000) start++;
      most = Math.max(most, end - start + 1);
    }
    return most;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  // --- Chain state, made by the real programs -------------------------------------------------

  /** A new mint under Token or Token-2022, its authority the stand-in's payer. */
  async createMint(options: { decimals?: number; program?: TokenProgram } = {}): Promise<Address> {
    const programAddress = programOf(options.program);
    const mint = await generateKeyPairSigner();
    await this.send([
      getCreateAccountInstruction({
        payer: this.payer,
        newAccount: mint,
        lamports: this.svm.minimumBalanceForRentExemption(MINT_SIZE),
        space: MINT_SIZE,
        programAddress,
      }),
      getInitializeMint2Instruction({ mint: mint.address, decimals: options.decimals ?? 6, mintAuthority: this.payer.address }, { programAddress }),
    ]);
    return mint.address;
  }

  /** A new token account of `mint` owned by `owner` (not the associated one: a wallet may hold several), with `amount` minted into it. */
  async mintTo(mint: Address | string, owner: Address | string, amount: bigint): Promise<Address> {
    const programAddress = this.programOfMint(address(mint));
    const account = await generateKeyPairSigner();
    const instructions: Instruction[] = [
      getCreateAccountInstruction({
        payer: this.payer,
        newAccount: account,
        lamports: this.svm.minimumBalanceForRentExemption(ACCOUNT_SIZE),
        space: ACCOUNT_SIZE,
        programAddress,
      }),
      getInitializeAccount3Instruction({ account: account.address, mint: address(mint), owner: address(owner) }, { programAddress }),
    ];
    if (amount > 0n)
      instructions.push(getMintToInstruction({ mint: address(mint), token: account.address, mintAuthority: this.payer, amount }, { programAddress }));
    await this.send(instructions);
    this.index(account.address, address(mint), address(owner));
    return account.address;
  }

  /** The associated token account of `owner` for `mint` (the ATA program's address, under the mint's program). */
  async associatedAddress(mint: Address | string, owner: Address | string): Promise<Address> {
    const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: this.programOfMint(address(mint)) });
    return ata;
  }

  /**
   * Writes a token account's bytes as the Token programs lay them out (the official codec,
   * `getTokenEncoder`), owned by the mint's program: many holders at once, where a transaction
   * each would take minutes. `at` defaults to the owner's associated token account.
   */
  async putTokenAccount(mint: Address | string, owner: Address | string, amount: bigint, at?: Address): Promise<Address> {
    const where = at ?? (await this.associatedAddress(mint, owner));
    const data = getTokenEncoder().encode({
      mint: address(mint),
      owner: address(owner),
      amount,
      delegate: none(),
      state: 1, // initialized
      isNative: none(),
      delegatedAmount: 0n,
      closeAuthority: none(),
    }) as Uint8Array;
    this.svm.setAccount({
      address: where,
      data,
      executable: false,
      lamports: lamports(this.rentExempt),
      programAddress: this.programOfMint(address(mint)),
      space: BigInt(data.length),
    });
    this.index(where, address(mint), address(owner));
    this.changed([where]);
    return where;
  }

  private rentExemptCache: bigint | undefined;
  private get rentExempt(): bigint {
    this.rentExemptCache ??= this.svm.minimumBalanceForRentExemption(ACCOUNT_SIZE);
    return this.rentExemptCache;
  }

  private index(account: Address, mint: Address, owner: Address): void {
    for (const [map, key] of [
      [this.byOwner, owner],
      [this.byMint, mint],
    ] as const) {
      const set = map.get(key) ?? new Set<Address>();
      map.set(key, set);
      set.add(account);
    }
  }

  /** Moves `amount` out of `from` (signed by its owner, a 64-byte secret key as tweetnacl holds it) into a new account of `to`. */
  async transfer(from: Address, ownerSecretKey: Uint8Array, to: Address | string, amount: bigint): Promise<void> {
    const mint = this.tokenAccount(from).mint;
    const owner = await createKeyPairSignerFromBytes(ownerSecretKey);
    const destination = await this.mintTo(mint, to, 0n);
    await this.send([getTransferInstruction({ source: from, destination, authority: owner, amount }, { programAddress: this.programOfMint(mint) })], [owner]);
  }

  /** Burns `amount` from `account`, signed by its owner. */
  async burn(account: Address, ownerSecretKey: Uint8Array, amount: bigint): Promise<void> {
    const owner = await createKeyPairSignerFromBytes(ownerSecretKey);
    const mint = this.tokenAccount(account).mint;
    await this.send([getBurnInstruction({ account, mint, authority: owner, amount }, { programAddress: this.programOfMint(mint) })], [owner]);
  }

  /** The token amount an account holds now. */
  balanceOf(account: Address): bigint {
    return this.tokenAccount(account).amount;
  }

  /**
   * An NFT (a decimals-0 mint, one token minted to `owner`) with a Metaplex Metadata account that
   * names `collection` (verified or not). Returns the NFT's mint.
   */
  async createNft(
    owner: Address | string,
    options: { collection?: Address | string; verified?: boolean; program?: TokenProgram; attributes?: DasAttribute[] } = {},
  ): Promise<{ mint: Address; tokenAccount: Address }> {
    const mint = await this.createMint({ decimals: 0, program: options.program });
    const tokenAccount = await this.mintTo(mint, owner, 1n);
    if (options.attributes) this.nftAttributes.set(mint, options.attributes);
    const data = getMetadataAccountDataSerializer().serialize({
      updateAuthority: umiPublicKey(this.payer.address),
      mint: umiPublicKey(mint),
      name: 'Test NFT',
      symbol: 'TEST',
      uri: 'https://example.com/nft.json',
      sellerFeeBasisPoints: 0,
      creators: none(),
      primarySaleHappened: false,
      isMutable: true,
      editionNonce: some(255),
      tokenStandard: some(TokenStandard.NonFungible),
      collection: options.collection ? some({ key: umiPublicKey(options.collection), verified: options.verified ?? true }) : none(),
      uses: none(),
      collectionDetails: none(),
      programmableConfig: none(),
    });
    const metadata = await metadataAddress(mint);
    this.metadataPdas.set(mint, metadata);
    this.svm.setAccount({
      address: metadata,
      data,
      executable: false,
      lamports: lamports(this.svm.minimumBalanceForRentExemption(BigInt(data.length))),
      programAddress: TOKEN_METADATA_PROGRAM_ADDRESS,
      space: BigInt(data.length),
    });
    void Key;
    return { mint, tokenAccount };
  }

  // --- DAS assets -------------------------------------------------------------------------------

  /** A compressed NFT (Bubblegum) of `owner`: no account on chain, only in DAS's index. Returns its asset id. */
  async addCompressedNft(
    owner: Address | string,
    options: { collection?: Address | string; verified?: boolean; attributes?: DasAttribute[]; burnt?: boolean; id?: string } = {},
  ): Promise<string> {
    const id = options.id ?? randomAddress();
    const tree = randomAddress();
    const leaf = this.assets.length;
    this.assets.push({
      id,
      owner: String(owner),
      collection: options.collection ? { address: String(options.collection), verified: options.verified ?? true } : undefined,
      json: {
        interface: 'V1_NFT',
        id,
        content: assetContent(`Compressed #${leaf}`, options.attributes ?? []),
        authorities: [{ address: this.payer.address, scopes: ['full'] }],
        compression: {
          eligible: false,
          compressed: true,
          data_hash: fakeHash(id, 1),
          creator_hash: fakeHash(id, 2),
          asset_hash: fakeHash(id, 3),
          tree,
          seq: leaf + 1,
          leaf_id: leaf,
        },
        royalty: royalty(),
        creators: [],
        ownership: { frozen: false, delegated: false, delegate: null, ownership_model: 'single', owner: String(owner) },
        supply: { print_max_supply: 0, print_current_supply: 0, edition_nonce: null },
        mutable: true,
        burnt: options.burnt ?? false,
      },
    });
    return id;
  }

  /** A Metaplex Core asset of `owner` in `collection` (Core's own collection: the asset names it, no verify step). Returns its id. */
  async addCoreAsset(owner: Address | string, options: { collection?: Address | string; attributes?: DasAttribute[]; burnt?: boolean } = {}): Promise<string> {
    const id = randomAddress();
    this.assets.push({
      id,
      owner: String(owner),
      collection: options.collection ? { address: String(options.collection), verified: true } : undefined,
      json: {
        interface: 'MplCoreAsset',
        id,
        content: assetContent('Core asset', options.attributes ?? []),
        authorities: [{ address: String(options.collection ?? this.payer.address), scopes: ['full'] }],
        compression: { eligible: false, compressed: false, data_hash: '', creator_hash: '', asset_hash: '', tree: '', seq: 0, leaf_id: 0 },
        royalty: royalty(),
        creators: [],
        ownership: { frozen: false, delegated: false, delegate: null, ownership_model: 'single', owner: String(owner) },
        supply: null,
        mutable: true,
        burnt: options.burnt ?? false,
      },
    });
    return id;
  }

  /** Moves a DAS-only asset (compressed or Core) to another owner, as a transfer does. */
  moveAsset(id: string, to: Address | string): void {
    const asset = this.assets.find((one) => one.id === id);
    if (!asset) throw new Error(`no asset ${id}`);
    asset.owner = String(to);
    (asset.json.ownership as { owner: string }).owner = String(to);
  }

  /** Every asset DAS lists for `owner` now, sorted by id: its DAS-only assets, and the token-metadata NFTs it holds. */
  private assetsOf(owner: Address, showUnverified: boolean): Record<string, unknown>[] {
    const found: { id: string; json: Record<string, unknown>; collection?: { address: string; verified: boolean } }[] = this.assets.filter(
      (asset) => asset.owner === owner,
    );
    for (const program of [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS]) {
      for (const at of this.tokenAccounts(program, { owner })) {
        const token = this.tokenAccount(at);
        const mint = this.svm.getAccount(token.mint);
        if (token.amount !== 1n || !mint.exists || getMintDecoder().decode(mint.data.slice(0, Number(MINT_SIZE))).decimals !== 0) continue;
        const nft = this.metadataOf(token.mint);
        if (!nft) continue;
        found.push({
          id: token.mint,
          collection: nft.collection,
          json: {
            interface: 'V1_NFT',
            id: token.mint,
            content: assetContent(nft.name, this.nftAttributes.get(token.mint) ?? []),
            authorities: [{ address: nft.updateAuthority, scopes: ['full'] }],
            compression: { eligible: false, compressed: false, data_hash: '', creator_hash: '', asset_hash: '', tree: '', seq: 0, leaf_id: 0 },
            royalty: royalty(),
            creators: [],
            ownership: { frozen: false, delegated: false, delegate: null, ownership_model: 'single', owner },
            supply: { print_max_supply: 0, print_current_supply: 0, edition_nonce: 255 },
            mutable: true,
            burnt: false,
            token_info: { supply: 1, decimals: 0, token_program: program },
          },
        });
      }
    }
    return found
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map(({ json, collection }) => {
        const grouping =
          collection && (collection.verified || showUnverified)
            ? [{ group_key: 'collection', group_value: collection.address, ...(showUnverified ? { verified: collection.verified } : {}) }]
            : [];
        return { ...json, grouping };
      });
  }

  /** A token-metadata NFT's Metadata account, decoded with Metaplex's codec; undefined when it has none. */
  private metadataOf(mint: Address): { name: string; updateAuthority: string; collection?: { address: string; verified: boolean } } | undefined {
    const pda = this.metadataPdas.get(mint);
    const account = pda ? this.svm.getAccount(pda) : undefined;
    if (!account?.exists) return undefined;
    const [metadata] = getMetadataAccountDataSerializer().deserialize(account.data);
    const collection =
      metadata.collection.__option === 'Some' ? { address: metadata.collection.value.key, verified: metadata.collection.value.verified } : undefined;
    return { name: metadata.name, updateAuthority: metadata.updateAuthority, collection };
  }

  private getAssetsByOwner(params: unknown): unknown {
    if (!this.das) throw new RpcError(-32601, 'Method not found');
    // DAS takes its params as an object (a one-element list of it is taken too).
    const options = (Array.isArray(params) ? params[0] : params) as {
      ownerAddress?: unknown;
      limit?: unknown;
      page?: unknown;
      cursor?: unknown;
      options?: { showUnverifiedCollections?: unknown };
    } | null;
    const owner = parseAddress(options?.ownerAddress);
    const limit = options?.limit === undefined ? 1000 : Number(options.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new RpcError(-32602, 'Invalid params: limit must be between 1 and 1000');
    const all = this.assetsOf(owner, options?.options?.showUnverifiedCollections === true);
    if (options?.page !== undefined || !this.dasKeyset) {
      const page = options?.page === undefined ? 1 : Number(options.page);
      if (!Number.isInteger(page) || page < 1) throw new RpcError(-32602, 'Invalid params: page must be 1 or more');
      const items = all.slice((page - 1) * limit, page * limit);
      return { total: items.length, limit, page, items };
    }
    const after = typeof options?.cursor === 'string' ? Buffer.from(options.cursor, 'base64url').toString('utf8') : '';
    const items = all.filter((item) => String(item.id) > after).slice(0, limit);
    const last = items.at(-1);
    return { total: items.length, limit, cursor: Buffer.from(last ? String(last.id) : after, 'utf8').toString('base64url'), items };
  }

  // --- Token-2022 groups -------------------------------------------------------------------------

  /** A Token-2022 group mint (GroupPointer to itself, TokenGroup), its bytes written by the Token-2022 codec. */
  async createTokenGroup(options: { maxSize?: bigint } = {}): Promise<Address> {
    const group = (await generateKeyPairSigner()).address;
    this.putToken2022Mint(group, [
      extension('GroupPointer', { authority: some(this.payer.address), groupAddress: some(group) }),
      extension('TokenGroup', { updateAuthority: some(this.payer.address), mint: group, size: 0n, maxSize: options.maxSize ?? 1_000_000n }),
    ]);
    return group;
  }

  /**
   * A Token-2022 member mint of `group` (GroupMemberPointer to itself, TokenGroupMember naming the
   * group), decimals 0, and `owner`'s associated token account holding `amount` of it.
   */
  async createGroupMember(group: Address | string, owner: Address | string, amount = 1n): Promise<{ mint: Address; tokenAccount: Address }> {
    const mint = (await generateKeyPairSigner()).address;
    this.groupSizes.set(String(group), (this.groupSizes.get(String(group)) ?? 0n) + 1n);
    this.putToken2022Mint(mint, [
      extension('GroupMemberPointer', { authority: some(this.payer.address), memberAddress: some(mint) }),
      extension('TokenGroupMember', { mint, group: address(group), memberNumber: this.groupSizes.get(String(group))! }),
    ]);
    const [tokenAccount] = await findToken2022AssociatedTokenPda({ owner: address(owner), mint, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS });
    const data = getToken2022TokenEncoder().encode({
      mint,
      owner: address(owner),
      amount,
      delegate: none(),
      state: 1,
      isNative: none(),
      delegatedAmount: 0n,
      closeAuthority: none(),
      extensions: some([extension('ImmutableOwner', {})]),
    }) as Uint8Array;
    this.putAccount(tokenAccount, data, TOKEN_2022_PROGRAM_ADDRESS);
    this.index(tokenAccount, mint, address(owner));
    return { mint, tokenAccount };
  }

  private readonly groupSizes = new Map<string, bigint>();

  /** Rewrites the amount a token account holds (Token or Token-2022, extensions kept), as a sale or a purchase would leave it. */
  setTokenAmount(account: Address, amount: bigint): void {
    const stored = this.svm.getAccount(account);
    if (!stored.exists) throw new Error(`no token account ${account}`);
    // The Token-2022 codec reads both programs' accounts (a Token account is one without extensions).
    const token = getToken2022TokenDecoder().decode(stored.data);
    this.putAccount(account, getToken2022TokenEncoder().encode({ ...token, amount }) as Uint8Array, stored.programAddress);
  }

  private putToken2022Mint(mint: Address, extensions: ExtensionArgs[]): void {
    const data = getToken2022MintEncoder().encode({
      mintAuthority: some(this.payer.address),
      supply: 1n,
      decimals: 0,
      isInitialized: true,
      freezeAuthority: none(),
      extensions: some(extensions),
    }) as Uint8Array;
    this.putAccount(mint, data, TOKEN_2022_PROGRAM_ADDRESS);
  }

  private putAccount(where: Address, data: Uint8Array, owner: Address): void {
    this.svm.setAccount({
      address: where,
      data,
      executable: false,
      lamports: lamports(this.svm.minimumBalanceForRentExemption(BigInt(data.length))),
      programAddress: owner,
      space: BigInt(data.length),
    });
  }

  private async send(instructions: Instruction[], extraSigners: TransactionSigner[] = []): Promise<void> {
    void extraSigners; // signers travel inside the instructions' account metas
    const transaction = await pipe(
      createTransactionMessage({ version: 0 }),
      (message) => setTransactionMessageFeePayerSigner(this.payer, message),
      (message) => this.svm.setTransactionMessageLifetimeUsingLatestBlockhash(message),
      (message) => appendTransactionMessageInstructions(instructions, message),
      (message) => signTransactionMessageWithSigners(message),
    );
    const result = this.svm.sendTransaction(transaction);
    if (result instanceof FailedTransactionMetadata) throw new Error(`transaction failed: ${result.err()} ${result.meta().logs().join('\n')}`);
    this.svm.expireBlockhash();
    this.changed([...new Set(instructions.flatMap((instruction) => (instruction.accounts ?? []).map((meta) => meta.address)))]);
  }

  private changed(accounts: Address[]): void {
    for (const listener of this.changeListeners) listener(accounts);
  }

  /** An account as `getAccountInfo` answers it with base64 data (`rpcJsonText` writes it out), or null. */
  accountView(where: Address): Record<string, unknown> | null {
    return this.accountJson(where, 'base64');
  }

  private programOfMint(mint: Address): Address {
    const account = this.svm.getAccount(mint);
    if (!account.exists) throw new Error(`no mint ${mint}`);
    return account.programAddress;
  }

  private tokenAccount(account: Address) {
    const stored = this.svm.getAccount(account);
    if (!stored.exists) throw new Error(`no token account ${account}`);
    return getTokenDecoder().decode(stored.data.slice(0, Number(ACCOUNT_SIZE)));
  }

  // --- JSON-RPC --------------------------------------------------------------------------------

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const arrivedAt = performance.now();
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    this.requests++;
    const throttle = this.throttle(arrivedAt);
    this.arrivals.push({ at: arrivedAt, ...describeCall(Buffer.concat(chunks)), throttled: throttle !== null });
    if (throttle) {
      this.throttled++;
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (throttle.retryAfter !== undefined) headers['retry-after'] = String(throttle.retryAfter);
      response.writeHead(429, headers).end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: 429, message: 'Too many requests' } }));
      return;
    }
    if (this.outage === 'hang') return; // never answered; the socket is destroyed at close()
    if (this.outage === 'refuse') return void request.socket.destroy();
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (this.outage === 'http503') {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('Service Unavailable');
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405).end();
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return this.reply(response, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    }
    const answer = Array.isArray(body) ? body.map((one) => this.answer(one)) : this.answer(body);
    const method = String((Array.isArray(body) ? body[0] : body)?.method ?? '');
    this.reply(response, this.rewrite ? this.rewrite(answer, method) : answer);
  }

  /** Whether this request gets a 429 (and its Retry-After), as a provider's limit would answer; null: it is answered. */
  private throttle(at: number): { retryAfter?: number } | null {
    if (this.tooManyLeft > 0) {
      this.tooManyLeft--;
      return { retryAfter: this.tooManyRetryAfter };
    }
    while (this.recent.length > 0 && at - this.recent[0]! >= 1000) this.recent.shift();
    if (this.limit && this.recent.length >= this.limit.perSecond) return { retryAfter: this.limit.retryAfterSeconds };
    this.recent.push(at);
    return null;
  }

  private reply(response: http.ServerResponse, answer: unknown): void {
    const text = rpcJsonText(answer);
    this.answeredBytes += Buffer.byteLength(text);
    if (!this.drip) {
      response.writeHead(200, { 'content-type': 'application/json' }).end(text);
      return;
    }
    const { bytes, everyMs } = this.drip;
    const data = Buffer.from(text);
    response.writeHead(200, { 'content-type': 'application/json' });
    let sent = 0;
    const timer = setInterval(() => {
      if (response.destroyed || sent >= data.length) {
        clearInterval(timer);
        if (!response.destroyed) response.end();
        return;
      }
      response.write(data.subarray(sent, sent + bytes));
      sent += bytes;
    }, everyMs);
    response.on('close', () => clearInterval(timer));
  }

  private answer(call: unknown): unknown {
    const { id = null, method, params = [] } = (call ?? {}) as { id?: unknown; method?: unknown; params?: unknown[] };
    try {
      if (typeof method !== 'string') throw new RpcError(-32600, 'Invalid request');
      this.calls.push(method);
      return { jsonrpc: '2.0', id, result: this.dispatch(method, params) };
    } catch (error) {
      const { code, message } = error instanceof RpcError ? error : { code: -32602, message: `Invalid params: ${(error as Error).message}` };
      return { jsonrpc: '2.0', id, error: { code, message } };
    }
  }

  private dispatch(method: string, params: unknown[]): unknown {
    const context = { slot: Number(this.svm.getClock().slot), apiVersion: '2.2.0' };
    const config = (params[method === 'getTokenAccountsByOwner' ? 2 : 1] ?? {}) as { encoding?: string; dataSlice?: { offset: number; length: number } };
    const encoding = config.encoding ?? 'base64';
    if (!['base64', 'jsonParsed'].includes(encoding)) throw new RpcError(-32602, `Invalid params: unsupported encoding ${encoding} in this stand-in`);
    switch (method) {
      case 'getAccountInfo':
        return { context, value: this.accountJson(parseAddress(params[0]), encoding) };
      case 'getMultipleAccounts': {
        const addresses = params[0];
        if (!Array.isArray(addresses)) throw new RpcError(-32602, 'Invalid params: expected an array of addresses');
        if (addresses.length > 100) throw new RpcError(-32602, 'Too many inputs provided; max 100');
        return { context, value: addresses.map((one) => this.accountJson(parseAddress(one), encoding)) };
      }
      case 'getTokenAccountsByOwner': {
        const owner = parseAddress(params[0]);
        const filter = (params[1] ?? {}) as { mint?: string; programId?: string };
        let program: Address;
        let mint: Address | undefined;
        if (filter.mint !== undefined) {
          mint = parseAddress(filter.mint);
          const mintAccount = this.svm.getAccount(mint);
          if (!mintAccount.exists || !isTokenProgram(mintAccount.programAddress)) throw new RpcError(-32602, 'Invalid param: could not find mint');
          program = mintAccount.programAddress;
        } else if (filter.programId !== undefined) {
          program = parseAddress(filter.programId);
          if (!isTokenProgram(program)) throw new RpcError(-32602, 'Invalid param: unrecognized Token program id');
        } else {
          throw new RpcError(-32602, 'Invalid params: expected {mint} or {programId}');
        }
        const value = this.tokenAccounts(program, { owner, mint }).map((where) => ({ pubkey: where, account: this.accountJson(where, encoding)! }));
        return { context, value };
      }
      case 'getProgramAccounts':
      case 'getProgramAccountsV2': {
        const program = parseAddress(params[0]);
        const options = (params[1] ?? {}) as {
          filters?: ({ dataSize?: number } | { memcmp?: { offset: number; bytes: string } })[];
          limit?: number;
          paginationKey?: string | null;
        };
        if (!isTokenProgram(program)) throw new RpcError(-32602, 'Invalid params: this stand-in reads token programs only');
        const where: { owner?: Address; mint?: Address } = {};
        for (const filter of options.filters ?? []) {
          if ('dataSize' in filter && filter.dataSize !== Number(ACCOUNT_SIZE)) throw new RpcError(-32602, 'Invalid params: dataSize 165 only');
          if ('memcmp' in filter && filter.memcmp) {
            if (filter.memcmp.offset === 0) where.mint = parseAddress(filter.memcmp.bytes);
            else if (filter.memcmp.offset === 32) where.owner = parseAddress(filter.memcmp.bytes);
            else throw new RpcError(-32602, 'Invalid params: memcmp at offset 0 (mint) or 32 (owner) only');
          }
        }
        if (!where.mint && !where.owner) throw new RpcError(-32602, 'Invalid params: filter on the mint or the owner');
        let found = this.tokenAccounts(program, where).sort();
        if (method === 'getProgramAccounts') return found.map((at) => ({ pubkey: at, account: this.accountJson(at, encoding, config.dataSlice)! }));
        const limit = options.limit ?? 1000;
        if (!(limit >= 1 && limit <= 10_000)) throw new RpcError(-32602, 'Invalid params: limit must be 1 to 10000');
        if (options.paginationKey) found = found.filter((at) => at > options.paginationKey!);
        const page = found.slice(0, limit);
        return {
          accounts: page.map((at) => ({ pubkey: at, account: this.accountJson(at, encoding, config.dataSlice)! })),
          paginationKey: found.length > limit ? page.at(-1)! : null,
        };
      }
      case 'getAssetsByOwner':
        return this.getAssetsByOwner(params);
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }

  /** The token accounts of `program` made through this stand-in, holding `mint` and/or owned by `owner`, as their bytes say now. */
  private tokenAccounts(program: Address, where: { owner?: Address; mint?: Address }): Address[] {
    const candidates = where.owner ? this.byOwner.get(where.owner) : this.byMint.get(where.mint!);
    const ownerBytes = where.owner && (getAddressEncoder().encode(where.owner) as Uint8Array);
    const mintBytes = where.mint && (getAddressEncoder().encode(where.mint) as Uint8Array);
    const found: Address[] = [];
    for (const candidate of candidates ?? []) {
      const account = this.svm.getAccount(candidate);
      if (!account.exists || account.programAddress !== program) continue;
      const { data } = account;
      if (data.length < Number(ACCOUNT_SIZE) || (data.length > Number(ACCOUNT_SIZE) && data[Number(ACCOUNT_SIZE)] !== 2)) continue;
      if (ownerBytes && !sameBytes(data.subarray(32, 64), ownerBytes)) continue;
      if (mintBytes && !sameBytes(data.subarray(0, 32), mintBytes)) continue;
      found.push(candidate);
    }
    return found;
  }

  private accountJson(where: Address, encoding: string, dataSlice?: { offset: number; length: number }): Record<string, unknown> | null {
    const account = this.svm.getAccount(where);
    if (!account.exists) return null;
    if (dataSlice && encoding === 'base64') {
      const data = account.data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length);
      return {
        executable: account.executable,
        lamports: Number(account.lamports),
        owner: account.programAddress,
        rentEpoch: RENT_EPOCH_MARK.slice(1, -1),
        space: account.data.length,
        data: [getBase64Decoder().decode(data), 'base64'],
      };
    }
    const base = {
      executable: account.executable,
      lamports: Number(account.lamports),
      owner: account.programAddress,
      rentEpoch: RENT_EPOCH_MARK.slice(1, -1),
      space: account.data.length,
    };
    const parsed = encoding === 'jsonParsed' && isTokenProgram(account.programAddress) ? this.parsedToken(account.programAddress, account.data) : undefined;
    return { ...base, data: parsed ?? [getBase64Decoder().decode(account.data), 'base64'] };
  }

  /** jsonParsed of a token account (mints and others fall back to base64, as this stand-in needs no more). */
  private parsedToken(program: Address, data: Uint8Array): unknown {
    if (data.length < Number(ACCOUNT_SIZE) || (data.length > Number(ACCOUNT_SIZE) && data[Number(ACCOUNT_SIZE)] !== 2)) return undefined;
    const token = getTokenDecoder().decode(data.slice(0, Number(ACCOUNT_SIZE)));
    const mintAccount = this.svm.getAccount(token.mint);
    const decimals = mintAccount.exists ? getMintDecoder().decode(mintAccount.data.slice(0, Number(MINT_SIZE))).decimals : 0;
    const ui = Number(token.amount) / 10 ** decimals;
    return {
      program: program === TOKEN_PROGRAM_ADDRESS ? 'spl-token' : 'spl-token-2022',
      parsed: {
        type: 'account',
        info: {
          isNative: token.isNative.__option === 'Some',
          mint: token.mint,
          owner: token.owner,
          state: ['uninitialized', 'initialized', 'frozen'][token.state] ?? 'initialized',
          tokenAmount: { amount: token.amount.toString(), decimals, uiAmount: ui, uiAmountString: formatUi(token.amount, decimals) },
        },
      },
      space: data.length,
    };
  }
}

/** JSON text of an answer as validators write it (a rent-exempt account's `rentEpoch` as a bare u64::MAX). */
export function rpcJsonText(answer: unknown): string {
  return JSON.stringify(answer).replaceAll(RENT_EPOCH_MARK, U64_MAX_TEXT);
}

/** The Metaplex Metadata account of a mint: the PDA of ["metadata", program id, mint]. */
export async function metadataAddress(mint: Address): Promise<Address> {
  const [pda] = await getProgramDerivedAddress({
    programAddress: TOKEN_METADATA_PROGRAM_ADDRESS,
    seeds: ['metadata', getAddressEncoder().encode(TOKEN_METADATA_PROGRAM_ADDRESS), getAddressEncoder().encode(mint)],
  });
  return pda;
}

/** The method and first parameter of a request body (the first call of a batch), for `arrivals`. */
function describeCall(body: Buffer): { method: string; first: unknown } {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as unknown;
    const call = (Array.isArray(parsed) ? parsed[0] : parsed) as { method?: unknown; params?: unknown } | undefined;
    // DAS takes its params as an object: its first parameter is the owner it names.
    const params = call?.params as { ownerAddress?: unknown } | unknown[] | undefined;
    return { method: String(call?.method ?? ''), first: Array.isArray(params) ? params[0] : params?.ownerAddress };
  } catch {
    return { method: '', first: undefined };
  }
}

function programOf(program: TokenProgram = 'token'): Address {
  return program === 'token' ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS;
}

function isTokenProgram(program: Address): boolean {
  return program === TOKEN_PROGRAM_ADDRESS || program === TOKEN_2022_PROGRAM_ADDRESS;
}

function parseAddress(value: unknown): Address {
  try {
    return address(String(value));
  } catch {
    throw new RpcError(-32602, 'Invalid param: Invalid');
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

function formatUi(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const text = amount.toString().padStart(decimals + 1, '0');
  return `${text.slice(0, -decimals)}.${text.slice(-decimals)}`.replace(/\.?0+$/, '');
}

/** content as DAS answers it: the off-chain JSON's metadata (name, attributes) and links. */
function assetContent(name: string, attributes: DasAttribute[]): Record<string, unknown> {
  return {
    $schema: 'https://schema.metaplex.com/nft1.0.json',
    json_uri: 'https://example.com/asset.json',
    files: [],
    metadata: { name, symbol: 'TEST', description: '', token_standard: 'NonFungible', attributes },
    links: {},
  };
}

function royalty(): Record<string, unknown> {
  return { royalty_model: 'creators', target: null, percent: 0, basis_points: 0, primary_sale_happened: false, locked: false };
}

/** A fresh address (32 random bytes): asset ids and trees, which no key signs for here. */
function randomAddress(): string {
  return getAddressDecoder().decode(randomBytes(32));
}

/** A hash-looking base58 text for fields nothing here reads. */
function fakeHash(id: string, salt: number): string {
  return `${id.slice(salt, 32)}${id.slice(0, salt)}`;
}
