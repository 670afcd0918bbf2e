// The ceiling of `npm run bench:fanout`: a bare node:http2 client pushing to the APNs stand-in on
// one connection with IN_FLIGHT streams at once, nothing else in its process. Run as a child
// process (so it shares no event loop with the stand-in); prints `{"pushes", "seconds", "rate"}`.
// Input from the environment: BARE_URL, BARE_CERT, BARE_KEY, BARE_CA (PEM), BARE_TOPIC, BARE_COUNT, BARE_IN_FLIGHT.
import { randomBytes } from 'node:crypto';
import http2 from 'node:http2';

const env = process.env as Record<string, string>;
const count = Number(env.BARE_COUNT);
const inFlight = Number(env.BARE_IN_FLIGHT);
const session = http2.connect(env.BARE_URL!, { cert: env.BARE_CERT, key: env.BARE_KEY, ca: env.BARE_CA });
const tokens = Array.from({ length: 1000 }, () => randomBytes(32).toString('hex'));

function push(i: number): Promise<number> {
  return new Promise((resolve) => {
    const request = session.request({
      ':method': 'POST',
      ':path': `/3/device/${tokens[i % tokens.length]}`,
      'apns-topic': env.BARE_TOPIC!,
      'content-type': 'application/json',
    });
    let status = 0;
    request.on('response', (headers) => {
      status = Number(headers[':status']);
    });
    request.on('data', () => {});
    request.on('close', () => resolve(status));
    request.on('error', () => resolve(0));
    request.end('{}');
  });
}

async function main(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    session.once('remoteSettings', () => resolve());
    session.once('error', reject);
  });
  let next = 0;
  let ok = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      if ((await push(next++)) === 200) ok++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  session.close();
  process.stdout.write(`${JSON.stringify({ pushes: ok, seconds, rate: ok / seconds })}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
