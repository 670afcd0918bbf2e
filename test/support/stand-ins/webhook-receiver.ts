// A webhook receiver on 127.0.0.1: a real HTTP server that records every POST (headers and the
// raw body, as a Standard Webhooks receiver must verify it) and answers as the test says: 200 by
// default, or any status (a failing receiver), per request.
//
// Use: `const receiver = await WebhookReceiver.start()`, point WEBHOOK_URL at `receiver.url`,
// `receiver.answer = () => 503` to fail, read `receiver.requests` / `receiver.accepted()`,
// `await receiver.close()`.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A WEBHOOK_SECRET in the Standard Webhooks form: whsec_ and the base64 of 32 random bytes. */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export type ReceivedWebhook = {
  headers: IncomingHttpHeaders;
  /** The body exactly as it arrived. */
  body: string;
  /** The status this receiver answered. */
  status: number;
  at: number;
};

export class WebhookReceiver {
  readonly requests: ReceivedWebhook[] = [];
  /** The status to answer a request with; 200 unless the test says otherwise. */
  answer: (request: { headers: IncomingHttpHeaders; body: string }) => number = () => 200;
  /** How long to take over each answer: a slow receiver widens the window for duplicates. */
  delayMs = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver: WebhookReceiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const status = receiver!.answer({ headers: req.headers, body });
        receiver!.requests.push({ headers: req.headers, body, status, at: Date.now() });
        setTimeout(() => res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now'), receiver!.delayMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`);
    return receiver;
  }

  /** The requests answered 2xx, in order. */
  accepted(): ReceivedWebhook[] {
    return this.requests.filter((request) => request.status >= 200 && request.status < 300);
  }

  /** The requests carrying this `webhook-id`. */
  withId(id: string): ReceivedWebhook[] {
    return this.requests.filter((request) => request.headers['webhook-id'] === id);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
