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
// Stand-in controls: `outage = 'refuse' | 'hang' | 'http503'` (connections reset, requests never
// answered, or HTTP 503), `delayMs` (every answer waits this long), `calls` (each method called),
// `rewrite` (each answer, as JSON, passes through it before it is sent: a malformed or oversized
// answer), `drip` (the answer's bytes trickle out a few at a time).
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
  getBurnInstruction,
  getInitializeAccount3Instruction,
  getInitializeMint2Instruction,
  getMintDecoder,
  getMintToInstruction,
  getTokenDecoder,
  getTransferInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { FailedTransactionMetadata, LiteSVM } from 'litesvm';

export const TOKEN_2022_PROGRAM_ADDRESS = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
export const TOKEN_METADATA_PROGRAM_ADDRESS = address('metaqbxxUerdq28cj1RbAWkYQm3ybzjb6a8bt518x1s');
export type TokenProgram = 'token' | 'token-2022';

const MINT_SIZE = 82n;
const ACCOUNT_SIZE = 165n;
const U64_MAX_TEXT = '18446744073709551615';
const RENT_EPOCH_MARK = '"__rent_epoch_u64_max__"';

type Outage = 'refuse' | 'hang' | 'http503' | null;

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
  private readonly sockets = new Set<Socket>();
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
    return account.address;
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
    options: { collection?: Address | string; verified?: boolean; program?: TokenProgram } = {},
  ): Promise<{ mint: Address; tokenAccount: Address }> {
    const mint = await this.createMint({ decimals: 0, program: options.program });
    const tokenAccount = await this.mintTo(mint, owner, 1n);
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
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    this.requests++;
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

  private reply(response: http.ServerResponse, answer: unknown): void {
    const text = JSON.stringify(answer).replaceAll(RENT_EPOCH_MARK, U64_MAX_TEXT);
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
    const config = (params[method === 'getTokenAccountsByOwner' ? 2 : 1] ?? {}) as { encoding?: string };
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
        const ownerBytes = getAddressEncoder().encode(owner) as Uint8Array;
        const mintBytes = mint && (getAddressEncoder().encode(mint) as Uint8Array);
        const value = this.svm
          .getProgramAccounts(program)
          .filter(({ data }) => data.length >= Number(ACCOUNT_SIZE) && (data.length === Number(ACCOUNT_SIZE) || data[Number(ACCOUNT_SIZE)] === 2))
          .filter(({ data }) => sameBytes(data.subarray(32, 64), ownerBytes) && (!mintBytes || sameBytes(data.subarray(0, 32), mintBytes)))
          .map((account) => ({ pubkey: account.address, account: this.accountJson(account.address, encoding)! }));
        return { context, value };
      }
      default:
        throw new RpcError(-32601, 'Method not found');
    }
  }

  private accountJson(where: Address, encoding: string): Record<string, unknown> | null {
    const account = this.svm.getAccount(where);
    if (!account.exists) return null;
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

/** The Metaplex Metadata account of a mint: the PDA of ["metadata", program id, mint]. */
export async function metadataAddress(mint: Address): Promise<Address> {
  const [pda] = await getProgramDerivedAddress({
    programAddress: TOKEN_METADATA_PROGRAM_ADDRESS,
    seeds: ['metadata', getAddressEncoder().encode(TOKEN_METADATA_PROGRAM_ADDRESS), getAddressEncoder().encode(mint)],
  });
  return pda;
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
