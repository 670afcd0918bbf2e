// A local stand-in for a Solana RPC's PubSub WebSocket endpoint, over the accounts of a
// SolanaRpcStandIn (solana-rpc.ts): a change made there (a transfer, tokens minted, bytes written)
// is visible to its HTTP reads and notified here to every subscription whose filters match.
//
// What the Solana RPC documentation (WebSocket methods) says, and what this server does:
// - JSON-RPC 2.0 over a WebSocket, one message each way per call. A message without an `id` is a
//   notification and gets no answer (so @solana/kit's keep-alive `ping` is left unanswered).
// - `programSubscribe(programId, {encoding, commitment, filters})` → `{"jsonrpc":"2.0","result":
//   <subscription id>,"id":…}`. Filters: `{dataSize}` (the account data's length) and
//   `{memcmp: {offset, bytes, encoding?}}` (base58 unless `encoding` is "base64"), all of which
//   must match. Only `encoding: "base64"` (the default here) is served; others are -32602.
// - On each change of a matching account owned by the program: `{"jsonrpc":"2.0","method":
//   "programNotification","params":{"result":{"context":{"slot"},"value":{"pubkey","account":
//   {data:[<base64>,"base64"], executable, lamports, owner, rentEpoch, space}}},"subscription":
//   <id>}}`.
// - `programUnsubscribe([id])` → `true`; an unknown id is -32602 "Invalid subscription id.".
//
// Controls: `drop()` ends every open connection abruptly (the TCP socket destroyed, no close
// frame), as a provider's restart or a network cut does; `refusing = true` refuses new
// connections until set back. `subscribeCalls` records every programSubscribe, with the
// connection it came on; `notified` counts the notifications sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Address, getBase58Encoder, getBase64Encoder } from '@solana/kit';
import { type WebSocket, WebSocketServer } from 'ws';
import { rpcJsonText, type SolanaRpcStandIn } from './solana-rpc';

type Filter = { dataSize?: number } | { memcmp?: { offset: number; bytes: string; encoding?: 'base58' | 'base64' } };

type Subscription = { id: number; socket: WebSocket; program: Address; filters: Filter[] };

/** One programSubscribe as it arrived: on which connection (numbered from 1), for which program, with which filters. */
export type SubscribeCall = { connection: number; program: string; filters: Filter[] };

class PubSubError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class SolanaPubSubStandIn {
  /** New connections are refused (the upgrade's socket destroyed) while true. */
  refusing = false;
  readonly subscribeCalls: SubscribeCall[] = [];
  /** Notifications sent. */
  notified = 0;
  /** Connections accepted so far. */
  accepted = 0;
  /** Connections refused (while `refusing`). */
  refused = 0;
  private readonly subscriptions = new Map<number, Subscription>();
  private readonly connectionOf = new Map<WebSocket, number>();
  private nextId = 1;
  private readonly onChange = (accounts: Address[]) => this.notify(accounts);

  private constructor(
    private readonly rpc: SolanaRpcStandIn,
    private readonly server: http.Server,
    private readonly wss: WebSocketServer,
  ) {}

  static async start(rpc: SolanaRpcStandIn): Promise<SolanaPubSubStandIn> {
    const server = http.createServer((_request, response) => response.writeHead(426, { upgrade: 'websocket' }).end());
    const wss = new WebSocketServer({ noServer: true });
    const standIn = new SolanaPubSubStandIn(rpc, server, wss);
    server.on('upgrade', (request, socket, head) => {
      if (standIn.refusing) {
        standIn.refused++;
        return void socket.destroy();
      }
      wss.handleUpgrade(request, socket, head, (ws) => standIn.accept(ws));
    });
    rpc.changeListeners.add(standIn.onChange);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return standIn;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Connections open now. */
  get connections(): number {
    return this.connectionOf.size;
  }

  /** Subscriptions live now, by connection number. */
  liveSubscriptions(): { connection: number; program: string }[] {
    return [...this.subscriptions.values()].map((one) => ({ connection: this.connectionOf.get(one.socket) ?? 0, program: one.program }));
  }

  /** Ends every open connection at once, without a close frame. */
  drop(): void {
    for (const socket of this.connectionOf.keys()) socket.terminate();
  }

  async close(): Promise<void> {
    this.rpc.changeListeners.delete(this.onChange);
    this.drop();
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(socket: WebSocket): void {
    this.accepted++;
    this.connectionOf.set(socket, this.accepted);
    socket.on('message', (data) => this.receive(socket, String(data)));
    socket.on('close', () => {
      this.connectionOf.delete(socket);
      for (const [id, subscription] of this.subscriptions) if (subscription.socket === socket) this.subscriptions.delete(id);
    });
    socket.on('error', () => {});
  }

  private receive(socket: WebSocket, text: string): void {
    let call: { id?: unknown; method?: unknown; params?: unknown };
    try {
      call = JSON.parse(text) as typeof call;
    } catch {
      this.send(socket, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      return;
    }
    if (call.id === undefined || call.id === null) return; // a notification (kit's ping): no answer
    const params = Array.isArray(call.params) ? call.params : [];
    try {
      const result = this.dispatch(socket, String(call.method), params);
      this.send(socket, { jsonrpc: '2.0', result, id: call.id });
    } catch (error) {
      const { code, message } = error instanceof PubSubError ? error : { code: -32602, message: `Invalid params: ${(error as Error).message}` };
      this.send(socket, { jsonrpc: '2.0', error: { code, message }, id: call.id });
    }
  }

  private dispatch(socket: WebSocket, method: string, params: unknown[]): unknown {
    switch (method) {
      case 'programSubscribe': {
        const program = String(params[0]) as Address;
        const config = (params[1] ?? {}) as { encoding?: string; filters?: Filter[] };
        if ((config.encoding ?? 'base64') !== 'base64')
          throw new PubSubError(-32602, `Invalid params: unsupported encoding ${config.encoding} in this stand-in`);
        const filters = config.filters ?? [];
        for (const filter of filters) {
          if (!('dataSize' in filter) && !('memcmp' in filter)) throw new PubSubError(-32602, 'Invalid params: unknown filter');
          if ('memcmp' in filter && filter.memcmp) filterBytes(filter.memcmp);
        }
        const id = this.nextId++;
        this.subscribeCalls.push({ connection: this.connectionOf.get(socket) ?? 0, program, filters });
        this.subscriptions.set(id, { id, socket, program, filters });
        return id;
      }
      case 'programUnsubscribe': {
        const id = Number(params[0]);
        const subscription = this.subscriptions.get(id);
        if (!subscription || subscription.socket !== socket) throw new PubSubError(-32602, 'Invalid subscription id.');
        this.subscriptions.delete(id);
        return true;
      }
      default:
        throw new PubSubError(-32601, 'Method not found');
    }
  }

  private notify(accounts: Address[]): void {
    if (this.subscriptions.size === 0) return;
    const slot = Number(this.rpc.svm.getClock().slot);
    for (const pubkey of accounts) {
      const stored = this.rpc.svm.getAccount(pubkey);
      if (!stored.exists) continue;
      const account = this.rpc.accountView(pubkey);
      for (const subscription of this.subscriptions.values()) {
        if (subscription.program !== stored.programAddress) continue;
        if (!subscription.filters.every((filter) => matches(filter, stored.data))) continue;
        this.notified++;
        this.send(subscription.socket, {
          jsonrpc: '2.0',
          method: 'programNotification',
          params: { result: { context: { slot }, value: { pubkey, account } }, subscription: subscription.id },
        });
      }
    }
  }

  private send(socket: WebSocket, message: unknown): void {
    if (socket.readyState === socket.OPEN) socket.send(rpcJsonText(message));
  }
}

function filterBytes(memcmp: { bytes: string; encoding?: string }): Uint8Array {
  try {
    return memcmp.encoding === 'base64' ? (getBase64Encoder().encode(memcmp.bytes) as Uint8Array) : (getBase58Encoder().encode(memcmp.bytes) as Uint8Array);
  } catch {
    throw new PubSubError(-32602, 'Invalid params: memcmp bytes cannot be decoded');
  }
}

function matches(filter: Filter, data: Uint8Array): boolean {
  if ('dataSize' in filter && filter.dataSize !== undefined) return data.length === filter.dataSize;
  if ('memcmp' in filter && filter.memcmp) {
    const bytes = filterBytes(filter.memcmp);
    const at = filter.memcmp.offset;
    return at + bytes.length <= data.length && bytes.every((byte, index) => data[at + index] === byte);
  }
  return false;
}
