// For the benchmark only: /health, init and claim served by a bare node:http handler that calls the
// same lib/ functions as the Next.js routes (store.ping, issueMessage, claimWalletPass, the same
// zod schemas), so that `npm run bench` can tell how much of a request's cost is Next.js's own
// routing. Not a way to run the service: no CORS, no rate limit, no access log, no graceful shutdown.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { claimWalletPass, issueMessage } from '../lib/claims';
import { loadConfig } from '../lib/config';
import { isAppError } from '../lib/errors';
import { toProblem } from '../lib/http/problem';
import { parseInput } from '../lib/http/validate';
import { claimBodySchema, initQuerySchema } from '../lib/schemas';
import { createServices, installServices, type Services } from '../lib/services';

async function route(services: Services, req: IncomingMessage): Promise<{ status: number; body: unknown }> {
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (req.method === 'GET' && url.pathname === '/health') {
    const healthy = await services.store.ping().then(
      () => true,
      () => false,
    );
    return { status: healthy ? 200 : 503, body: { status: healthy ? 'healthy' : 'unhealthy' } };
  }
  if (req.method === 'GET' && url.pathname === '/api/v1/claim/init') {
    const { publicKey } = parseInput(initQuerySchema, Object.fromEntries(url.searchParams));
    return { status: 200, body: await issueMessage(services, publicKey) };
  }
  if (req.method === 'POST' && url.pathname === '/api/v1/claim/wallet-pass') {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const claim = parseInput(claimBodySchema, JSON.parse(Buffer.concat(chunks).toString('utf8')));
    const { created, downloadUrl } = await claimWalletPass(services, claim);
    return { status: created ? 201 : 200, body: { downloadUrl } };
  }
  return { status: 404, body: { status: 404 } };
}

async function main(): Promise<void> {
  const config = loadConfig();
  const services = await installServices(createServices(config));
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    route(services, req).then(
      ({ status, body }) => send(res, status, body),
      (error: unknown) => {
        if (isAppError(error)) send(res, toProblem(error).status, toProblem(error));
        else send(res, 500, { error: String(error) });
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  server.listen(config.port, () => services.log.info({ event: 'listening', port: config.port }, 'bare benchmark server'));
  // Exiting by itself rather than dying of the signal lets --cpu-prof write its profile.
  process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    void services.close().finally(() => process.exit(0));
  });
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

main().catch((error: unknown) => {
  console.error('bench-bare-server: failed to start:', error);
  process.exit(1);
});
