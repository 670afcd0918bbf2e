// Runs inside a fresh network namespace (test/server/ipv6.test.ts starts it with `unshare -n`),
// where it can give the loopback interface IPv6 addresses of its own: it starts the built server,
// speaks to it from several source addresses, and prints what happened as one JSON line.
import { execFileSync } from 'node:child_process';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { ServerProcess } from '../../../scripts/support/server-process';
import { TestWallet } from '../../support/wallet';

const SAME_64 = ['2001:db8:1:2::a', '2001:db8:1:2:ffff::b'];
const OTHER_64 = '2001:db8:1:3::a';
const SERVER = '2001:db8:1:2::1';

function setUpLoopback(): void {
  execFileSync('ip', ['link', 'set', 'lo', 'up']);
  for (const address of [SERVER, ...SAME_64, OTHER_64]) execFileSync('ip', ['-6', 'addr', 'add', `${address}/128`, 'dev', 'lo', 'nodad']);
}

function init(port: number, from: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: SERVER, family: 6, port, localAddress: from, path: `/api/v1/claim/init?publicKey=${new TestWallet().publicKey}`, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Whether a connection from `from` is served (true) or closed at once (false). */
function connection(port: number, from: string): Promise<{ socket: Socket; accepted: boolean }> {
  return new Promise((resolve) => {
    const socket = connect({ host: SERVER, port, localAddress: from, family: 6 });
    socket.on('error', () => {});
    socket.once('close', () => resolve({ socket, accepted: false }));
    socket.once('connect', () => {
      socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n');
      socket.once('data', () => resolve({ socket, accepted: true }));
    });
  });
}

async function main(): Promise<void> {
  setUpLoopback();
  const port = 43_210;
  const server = await ServerProcess.start(
    port,
    {
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      RATE_LIMIT_PER_MINUTE: '2',
      MAX_CONNECTIONS_PER_IP: '2',
      LOG_LEVEL: 'warn',
    },
    { timeoutMs: 150_000 },
  );
  try {
    // Two addresses of one /64 share one budget of 2; another /64 has its own.
    const inits = {
      sameFirst: await init(port, SAME_64[0]!),
      sameSecond: await init(port, SAME_64[1]!),
      sameThird: await init(port, SAME_64[0]!),
      otherFirst: await init(port, OTHER_64),
    };
    const held = [await connection(port, SAME_64[0]!), await connection(port, SAME_64[1]!)];
    const sameThirdConnection = await connection(port, SAME_64[1]!);
    const otherConnection = await connection(port, OTHER_64);
    for (const c of [...held, sameThirdConnection, otherConnection]) c.socket.destroy();
    console.log(
      JSON.stringify({
        inits,
        connections: {
          held: held.map((c) => c.accepted),
          sameThird: sameThirdConnection.accepted,
          other: otherConnection.accepted,
        },
      }),
    );
  } finally {
    await server.dispose();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
