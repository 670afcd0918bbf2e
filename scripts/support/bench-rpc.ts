// `node --import tsx scripts/support/bench-rpc.ts <delayMs>`: the gated benchmark's Solana JSON-RPC,
// in a process of its own (the benchmark's own process is busy driving the load, and would delay
// the answers). Answers getTokenAccountsByOwner (jsonParsed) after <delayMs> with one account
// holding 1 token of the asked mint for every owner; `GET /count` says how many calls it answered.
// Prints its URL on the first line of stdout.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const delayMs = Number(process.argv[2] ?? 20);
let calls = 0;

const server = http.createServer((request, response) => {
  if (request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'text/plain' }).end(String(calls));
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    calls++;
    const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: unknown; params: [string, { mint: string }] };
    const [owner, { mint }] = call.params;
    const account = {
      pubkey: owner,
      account: {
        executable: false,
        lamports: 2039280,
        owner: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
        rentEpoch: 0,
        space: 165,
        data: {
          program: 'spl-token',
          parsed: {
            type: 'account',
            info: { isNative: false, mint, owner, state: 'initialized', tokenAmount: { amount: '1', decimals: 0, uiAmount: 1, uiAmountString: '1' } },
          },
          space: 165,
        },
      },
    };
    const body = JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { context: { slot: 1 }, value: [account] } });
    setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(body), delayMs);
  });
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
