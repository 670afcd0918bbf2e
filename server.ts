// The HTTP server: validates configuration and opens storage before listening, answers the API
// straight from the endpoint table (lib/api/endpoints/), hands the pages to Next.js, and owns what
// only the socket knows (the peer address), the request id, the access log, and a graceful
// shutdown on SIGTERM.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import next from 'next';
import { NodeRequest, sendNodeResponse } from 'srvx/node';
import { normalizeAddress, rateLimitKey } from './lib/api/client-ip';
import { markCustomServer } from './lib/api/custom-server';
import { ENDPOINTS } from './lib/api/endpoints';
import { type Api, createApi, problem } from './lib/api/frame';
import { isApiPath } from './lib/api/paths';
import { type Config, ConfigError, loadConfig } from './lib/config';
import { DatabaseOpenError } from './lib/db/client';
import { restrictUmask } from './lib/db/data-dir';
import { AppError } from './lib/errors';
import { createServices, type Services } from './lib/services';
import { shareServices } from './lib/shared-services';

const dev = process.argv.includes('--dev');
/** In-flight requests get this long to finish after SIGTERM before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 8000;
/** How often Node checks connections against the headers and request timeouts (default 30 s). */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;
/** Page paths answer only these; anything else is refused before its body is read. */
const PAGE_METHODS = new Set(['GET', 'HEAD']);

async function main(): Promise<void> {
  // Before anything is written: DATA_DIR's files (keys, the embedded database) are the user's only.
  restrictUmask();
  const config = loadConfig();
  const services = await createServices(config);
  const { log } = services;
  const api = createApi(services, ENDPOINTS);
  markCustomServer();
  // The pages that read the service directly (a program's claim page) use these same services.
  shareServices(services);

  const app = next({ dev, dir: process.cwd(), port: config.port });
  await app.prepare();
  const pages = app.getRequestHandler();

  let shuttingDown = false;
  const server = createServer({ connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS }, (req, res) => {
    const requestId = randomUUID();
    res.setHeader('X-Request-Id', requestId);
    if (shuttingDown) {
      res.setHeader('connection', 'close');
      void sendNodeResponse(res, problem(new AppError('service_unavailable', 'This instance is shutting down; retry.', { retryAfterSeconds: 1 }), requestId));
      return;
    }
    const started = process.hrtime.bigint();
    res.on('finish', () => accessLog(services, req, res, requestId, started));
    if (isApiPath(pathOf(req.url))) void serveApi(api, req, res, requestId, log);
    else if (!PAGE_METHODS.has(req.method ?? '')) refusePageMethod(res, requestId);
    else void pages(req, res);
  });
  server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout (60 s)
  // Counted from a request's first byte (an idle keep-alive connection is the keep-alive timeout's).
  // A client gets config.headersTimeoutMs (15 s) to send a request's headers; a slower one is cut off (408).
  server.headersTimeout = config.headersTimeoutMs;
  server.requestTimeout = 30_000;
  limitConnections(server, config, log);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, () => resolve());
  });
  log.info(
    {
      event: 'listening',
      port: config.port,
      publicBaseUrl: config.publicBaseUrl,
      database: services.store.kind,
      rateLimit: config.redisUrl ? 'redis' : 'memory',
    },
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

/**
 * An API request: Node's request as a Fetch Request and the answer back, through srvx's adapter
 * (docs/decisions.md says why srvx). The frame answers every error itself; a throw here is a bug
 * in the adapter's path, and the client still gets an answer.
 */
async function serveApi(api: Api, req: IncomingMessage, res: ServerResponse, requestId: string, log: Services['log']): Promise<void> {
  try {
    const response = await api.handle(new NodeRequest({ req, res }), { peer: normalizeAddress(req.socket.remoteAddress), requestId });
    // A body left unread (refused: 413, 415, 429, 405) would otherwise be read to its end and
    // thrown away before the connection could serve another request: close it instead.
    if (!req.complete) res.setHeader('connection', 'close');
    await sendNodeResponse(res, response);
  } catch (error) {
    log.error({ err: error, requestId }, 'answering an API request failed');
    if (!res.headersSent) await sendNodeResponse(res, problem(new AppError('internal_error', `Quote request id ${requestId}.`), requestId));
    else res.destroy();
  }
}

/**
 * A page path with a method other than GET or HEAD: 405 without reading the body (Next.js would
 * buffer it), and the connection closed, so the unread body is never parsed as a next request.
 */
function refusePageMethod(res: ServerResponse, requestId: string): void {
  res.setHeader('connection', 'close');
  void sendNodeResponse(res, problem(new AppError('method_not_allowed', 'Pages answer GET and HEAD only.'), requestId, { allow: 'GET, HEAD' }));
}

/**
 * Open connections: at most MAX_CONNECTIONS in all (Node drops the rest as they arrive), and at
 * most MAX_CONNECTIONS_PER_IP from one address (an IPv6 /64), so one client holding connections
 * open cannot take all of them. Behind TRUST_PROXY every connection comes from the proxies, so the
 * per-IP cap would throttle everyone: it is not applied there (the proxy's job, docs/limits.md).
 */
function limitConnections(server: ReturnType<typeof createServer>, config: Config, log: Services['log']): void {
  server.maxConnections = config.maxConnections;
  const warn = onceEvery(10_000, (event: string, message: string) => log.warn({ event }, message));
  server.on('drop', () => warn('connections_full', `MAX_CONNECTIONS (${config.maxConnections}) reached: refusing new connections`));
  if (config.maxConnectionsPerIp === 0 || config.trustProxyHops > 0) return;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const key = rateLimitKey(normalizeAddress(socket.remoteAddress) ?? 'unknown');
    const count = (open.get(key) ?? 0) + 1;
    if (count > config.maxConnectionsPerIp) {
      warn('connections_per_ip_full', `MAX_CONNECTIONS_PER_IP (${config.maxConnectionsPerIp}) reached by one address: refusing its new connections`);
      socket.destroy();
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
}

/** `action`, at most once per `intervalMs` (a flood must not flood the log too). */
function onceEvery<A extends unknown[]>(intervalMs: number, action: (...args: A) => void): (...args: A) => void {
  let last = 0;
  return (...args) => {
    if (Date.now() - last < intervalMs) return;
    last = Date.now();
    action(...args);
  };
}

/** The path of a request target, without its query, dot segments resolved as the frame's URL does. */
function pathOf(url = '/'): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  return path.includes('.') || path.includes('//') ? new URL(`http://localhost${path}`).pathname : path;
}

/** One line per request. The path only: query strings carry pass ids, which are secrets. */
function accessLog(services: Services, req: IncomingMessage, res: ServerResponse, requestId: string, started: bigint): void {
  services.log.info({
    event: 'request',
    requestId,
    method: req.method,
    path: pathOf(req.url),
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
