// `node --import tsx scripts/support/adapter-server.ts <srvx|hono|hono-keep-globals>`: one Fetch
// handler behind one Node-to-Fetch adapter, for scripts/bench-adapter.ts. The handler does what the API's cheapest
// answers do (a JSON answer for GET; read, parse and echo a JSON body for POST), so the figures are
// the adapter's cost. Prints its port on the first line of stdout.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { FastResponse, NodeRequest, sendNodeResponse } from 'srvx/node';

const adapter = process.argv[2];
// Each adapter with its own fast Response, as a server using it would answer: srvx's FastResponse
// (what lib/api/frame.ts builds), and for hono the global Response, which getRequestListener
// replaces with its lightweight one unless told to keep the process's globals (hono-keep-globals:
// what a process that also runs Next.js's pages would want).
function json(value: unknown, status = 200): Response {
  const AnswerResponse = adapter === 'srvx' ? (FastResponse as unknown as typeof Response) : globalThis.Response;
  return new AnswerResponse(JSON.stringify(value), { status, headers: { 'content-type': 'application/json' } });
}

async function handle(request: Request): Promise<Response> {
  if (request.method === 'POST') {
    const body = (await request.json()) as { publicKey?: string };
    return json({ ok: true, publicKey: body.publicKey ?? null }, 201);
  }
  return json({ status: 'ok', checks: { database: 'ok' } });
}

const listener: http.RequestListener =
  adapter === 'srvx'
    ? (req, res) => void handle(new NodeRequest({ req, res })).then((response) => sendNodeResponse(res, response))
    : adapter === 'hono'
      ? getRequestListener(handle)
      : adapter === 'hono-keep-globals'
        ? getRequestListener(handle, { overrideGlobalObjects: false })
        : (() => {
            throw new Error(`adapter-server: unknown adapter ${adapter} (srvx, hono or hono-keep-globals)`);
          })();

const server = http.createServer(listener);
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
