// The HTTP server: validates configuration and opens storage before listening, hands every request
// to Next.js, and owns what only the socket knows (the peer address), the request id, the access
// log, and a graceful shutdown on SIGTERM.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import next from 'next';
import { ConfigError, loadConfig } from './lib/config';
import { DatabaseOpenError } from './lib/db/client';
import { AppError } from './lib/errors';
import { PEER_ADDRESS_HEADER } from './lib/http/client-ip';
import { toProblem } from './lib/http/problem';
import { REQUEST_ID_HEADER } from './lib/http/route';
import { createServices, installServices, type Services } from './lib/services';

const dev = process.argv.includes('--dev');
/** In-flight requests get this long to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 8000;

async function main(): Promise<void> {
  const config = loadConfig();
  const services = await installServices(createServices(config));
  const { log } = services;

  const app = next({ dev, dir: process.cwd(), port: config.port });
  await app.prepare();
  const handle = app.getRequestHandler();

  let shuttingDown = false;
  const server = createServer((req, res) => {
    if (shuttingDown) {
      res.writeHead(503, { 'content-type': 'application/problem+json', connection: 'close', 'retry-after': '1' });
      res.end(JSON.stringify(toProblem(new AppError('service_unavailable', 'This instance is shutting down; retry.'))));
      return;
    }
    const started = process.hrtime.bigint();
    const requestId = randomUUID();
    // Overwrite whatever the client sent under these names: only the socket knows the peer.
    req.headers[PEER_ADDRESS_HEADER] = normalizeAddress(req.socket.remoteAddress);
    req.headers[REQUEST_ID_HEADER] = requestId;
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', () => accessLog(services, req, res, requestId, started));
    void handle(req, res);
  });
  server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout (60 s)
  server.headersTimeout = 66_000;
  server.requestTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, () => resolve());
  });
  log.info(
    { event: 'listening', port: config.port, publicBaseUrl: config.publicBaseUrl, database: services.store.kind, rateLimit: config.redisUrl ? 'redis' : 'memory' },
    `listening on http://localhost:${config.port}`,
  );

  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info({ event: 'shutdown', signal }, 'finishing in-flight requests');
    const forced = setTimeout(() => {
      log.warn({ event: 'shutdown_forced' }, 'in-flight requests did not finish in time');
      process.exit(0);
    }, SHUTDOWN_GRACE_MS);
    forced.unref();
    // Stop accepting, then close each keep-alive connection as soon as it is idle: the ones idle
    // now, and the ones whose in-flight request finishes later (they would otherwise stay open
    // for the keep-alive timeout and hold the exit back).
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const sweeper = setInterval(() => server.closeIdleConnections(), 100);
    await closed;
    clearInterval(sweeper);
    await services.close().catch((error) => log.error({ err: error }, 'closing services failed'));
    log.info({ event: 'stopped' }, 'stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** "::ffff:127.0.0.1" -> "127.0.0.1": one client, one rate-limit key, however it connected. */
function normalizeAddress(address: string | undefined): string {
  if (!address) return 'unknown';
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

/** One line per request. The path only: query strings carry pass ids, which are secrets. */
function accessLog(services: Services, req: IncomingMessage, res: ServerResponse, requestId: string, started: bigint): void {
  const url = req.url ?? '/';
  const queryAt = url.indexOf('?');
  services.log.info({
    event: 'request',
    requestId,
    method: req.method,
    path: queryAt === -1 ? url : url.slice(0, queryAt),
    status: res.statusCode,
    durationMs: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
  });
}

main().catch((error: unknown) => {
  // One clear line for a bad setting; the full error for anything unexpected.
  if (error instanceof ConfigError || error instanceof DatabaseOpenError) {
    console.error(`wallet-pass-claim: ${error.message}`);
  } else {
    console.error('wallet-pass-claim: failed to start:', error);
  }
  process.exit(1);
});
