// The PubSub stand-in speaks Solana's documented WebSocket JSON-RPC, checked with a plain `ws`
// client: programSubscribe answers a subscription id; a change made through the RPC stand-in is
// notified (documented shape) to the subscriptions whose filters match, and only to them; a
// message without an id gets no answer; programUnsubscribe stops notifications, and an unknown id
// is an error; drop() ends the connection and `refusing` refuses new ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { TestWallet } from '../wallet';
import { SolanaPubSubStandIn } from './solana-pubsub';
import { SolanaRpcStandIn, TOKEN_2022_PROGRAM_ADDRESS } from './solana-rpc';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

type Message = { id?: number; result?: unknown; error?: { code: number; message: string }; method?: string; params?: { result: any; subscription: number } };

/** A raw client: sends calls, and keeps every message received. */
async function connect(url: string) {
  const socket = new WebSocket(url);
  const received: Message[] = [];
  socket.on('message', (data) => received.push(JSON.parse(String(data)) as Message));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  let id = 0;
  const waitFor = async (match: (message: Message) => boolean, timeoutMs = 5000): Promise<Message> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = received.find(match);
      if (found) return found;
      if (Date.now() > until) throw new Error('no such message in time');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return {
    socket,
    received,
    waitFor,
    call: async (method: string, params: unknown[]) => {
      const callId = ++id;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: callId, method, params }));
      return waitFor((message) => message.id === callId);
    },
  };
}

describe('Solana PubSub stand-in', () => {
  let rpc: SolanaRpcStandIn;
  let pubsub: SolanaPubSubStandIn;
  beforeAll(async () => {
    rpc = await SolanaRpcStandIn.start();
    pubsub = await SolanaPubSubStandIn.start(rpc);
  });
  afterAll(async () => {
    await pubsub.close();
    await rpc.close();
  });

  it('notifies programSubscribe of a transfer, in the documented shape, only where the filters match', async () => {
    const mint = await rpc.createMint();
    const otherMint = await rpc.createMint();
    const seller = new TestWallet();
    const account = await rpc.mintTo(mint, seller.publicKey, 10n);
    const client = await connect(pubsub.url);
    try {
      const subscribed = await client.call('programSubscribe', [
        TOKEN_PROGRAM,
        { encoding: 'base64', commitment: 'confirmed', filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint, encoding: 'base58' } }] },
      ]);
      expect(subscribed).toMatchObject({ jsonrpc: '2.0', result: expect.any(Number) });
      const other = await client.call('programSubscribe', [TOKEN_PROGRAM, { encoding: 'base64', filters: [{ memcmp: { offset: 0, bytes: otherMint } }] }]);
      const wrongProgram = await client.call('programSubscribe', [
        TOKEN_2022_PROGRAM_ADDRESS,
        { encoding: 'base64', filters: [{ memcmp: { offset: 0, bytes: mint } }] },
      ]);
      // A notification (no id), such as @solana/kit's ping, gets no answer.
      client.socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'ping' }));
      expect((await client.call('programSubscribe', [TOKEN_PROGRAM, { encoding: 'jsonParsed' }])).error).toMatchObject({ code: -32602 });

      await rpc.transfer(account, seller.keyPair.secretKey, new TestWallet().publicKey, 10n);
      const notification = await client.waitFor((message) => message.method === 'programNotification' && message.params?.result.value.pubkey === account);
      expect(notification.params!.subscription).toBe(subscribed.result);
      const { context, value } = notification.params!.result;
      expect(context.slot).toEqual(expect.any(Number));
      expect(value.account).toMatchObject({ owner: TOKEN_PROGRAM, executable: false, lamports: expect.any(Number), space: 165 });
      expect(value.account.data[1]).toBe('base64');
      const bytes = Buffer.from(value.account.data[0], 'base64');
      expect(bytes).toHaveLength(165);
      expect(bytes.readBigUInt64LE(64)).toBe(0n); // the amount, as the transfer left it
      // The RPC reads the same account as it is now.
      expect(rpc.balanceOf(account)).toBe(0n);
      const subscriptions = new Set(
        client.received.filter((message) => message.method === 'programNotification').map((message) => message.params!.subscription),
      );
      expect(subscriptions.has(other.result as number)).toBe(false);
      expect(subscriptions.has(wrongProgram.result as number)).toBe(false);
      expect(client.received.filter((message) => message.id === undefined && message.method !== 'programNotification')).toEqual([]);

      expect((await client.call('programUnsubscribe', [subscribed.result])).result).toBe(true);
      expect((await client.call('programUnsubscribe', [subscribed.result])).error).toEqual({ code: -32602, message: 'Invalid subscription id.' });
      const before = pubsub.notified;
      await rpc.mintTo(mint, seller.publicKey, 1n);
      expect(pubsub.notified).toBe(before);
    } finally {
      client.socket.close();
    }
  });

  it('drops connections on demand and refuses new ones while told to', async () => {
    const client = await connect(pubsub.url);
    const closed = new Promise<number>((resolve) => client.socket.once('close', (code) => resolve(code)));
    pubsub.drop();
    expect(await closed).toBe(1006); // abnormal: no close frame
    pubsub.refusing = true;
    await expect(connect(pubsub.url)).rejects.toThrow();
    expect(pubsub.refused).toBe(1);
    pubsub.refusing = false;
    (await connect(pubsub.url)).socket.close();
  });
});
