// Pass-update pushes to Apple's push service (APNS_URL, https://api.push.apple.com by default).
//
// What Apple documents for Wallet ("Adding a Web Service to Update Passes"; docs/living-passes.md):
// the push goes over HTTP/2 to POST /3/device/<push token>, authenticated by TLS client
// certificate with the same Pass Type ID certificate and key that sign the pass, topic
// (`apns-topic`) the pass type identifier, payload an empty JSON dictionary. A 410 means the
// token is no longer valid for that topic, and so do 400 BadDeviceToken and DeviceTokenNotForTopic
// (a token that never was, or one of another topic): the registration is removed.
//
// Why node:http2 rather than @parse/node-apn 8.1 (which does run on Node 20): a Wallet push is
// one fixed request whose only variable is the token, and the durable queue (lib/queue) already
// owns retries and backoff. node-apn would add its own retry loop and connection pool on top of
// the queue's, four dependencies (node-forge 1.4.0 pinned a patch behind ours, jsonwebtoken,
// verror, debug), and a Notification model built for app alerts (it writes `{"aps":{}}` unless
// given a raw payload). Here: one long-lived HTTP/2 session per process, reopened when it closes,
// and the answer as a value the job maps to "done", "remove the registration" or "retry".

import { randomUUID } from 'node:crypto';
import http2 from 'node:http2';

export type PushOutcome =
  | { kind: 'delivered'; apnsId?: string }
  /** The token is gone (410 Unregistered / ExpiredToken) or never was one for this topic (400 BadDeviceToken / DeviceTokenNotForTopic). */
  | { kind: 'gone'; reason: string }
  /** 4xx other than 410 and 429: retrying the same request will not help. */
  | { kind: 'rejected'; status: number; reason: string }
  /** 429, 5xx, or no answer: worth retrying later. */
  | { kind: 'retry'; status?: number; reason: string };

export type ApnsClientOptions = {
  /** https origin, e.g. https://api.push.apple.com */
  url: string;
  /** The Pass Type ID certificate and its key (PEM): the pass's own signing material. */
  certPem: string;
  keyPem: string;
  /** The pass type identifier: every push's apns-topic. */
  topic: string;
  timeoutMs?: number;
  /** PEM of the CA that issued the server's certificate, when Node's store lacks it (a local stand-in); APNs's own is in it. */
  ca?: string;
};

export class ApnsClient {
  private session: http2.ClientHttp2Session | undefined;
  private closed = false;

  constructor(private readonly options: ApnsClientOptions) {}

  /** One pass-update push to one device. Never throws: every outcome is a value. */
  async push(pushToken: string): Promise<PushOutcome> {
    if (this.closed) return { kind: 'retry', reason: 'client closed' };
    if (!/^[0-9a-fA-F]{1,200}$/.test(pushToken)) return { kind: 'gone', reason: 'BadDeviceToken (not hex)' };
    let session: http2.ClientHttp2Session;
    try {
      session = this.connect();
    } catch (error) {
      return { kind: 'retry', reason: `connect: ${(error as Error).message}` };
    }
    return new Promise<PushOutcome>((resolve) => {
      const request = session.request({
        ':method': 'POST',
        ':path': `/3/device/${pushToken}`,
        'apns-topic': this.options.topic,
        'apns-id': randomUUID(),
        'content-type': 'application/json',
      });
      const timer = setTimeout(() => {
        request.close(http2.constants.NGHTTP2_CANCEL);
        resolve({ kind: 'retry', reason: 'no answer in time' });
      }, this.options.timeoutMs ?? 10_000);
      let status = 0;
      let apnsId: string | undefined;
      const chunks: Buffer[] = [];
      request.on('response', (headers) => {
        status = Number(headers[':status']);
        apnsId = headers['apns-id'] as string | undefined;
      });
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('error', (error) => {
        clearTimeout(timer);
        resolve({ kind: 'retry', reason: error.message });
      });
      request.on('end', () => {
        clearTimeout(timer);
        resolve(outcomeOf(status, Buffer.concat(chunks).toString('utf8'), apnsId));
      });
      request.end('{}');
    });
  }

  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }

  /** The open session, or a new one: APNs asks providers to keep connections open rather than reconnect per push. */
  private connect(): http2.ClientHttp2Session {
    if (this.session && !this.session.closed && !this.session.destroyed) return this.session;
    const session = http2.connect(this.options.url, {
      cert: this.options.certPem,
      key: this.options.keyPem,
      ...(this.options.ca ? { ca: this.options.ca } : {}),
    });
    session.on('error', () => {}); // the request in flight reports it; the next push reconnects
    session.on('close', () => {
      if (this.session === session) this.session = undefined;
    });
    // An idle session does not keep the process (or a test) alive.
    session.unref();
    this.session = session;
    return session;
  }
}

/** 400 reasons that say the token will never take a push for this topic: pushing it again cannot help. */
const TOKEN_NOT_VALID_REASONS = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic']);

function outcomeOf(status: number, body: string, apnsId: string | undefined): PushOutcome {
  if (status === 200) return { kind: 'delivered', apnsId };
  let reason = body;
  try {
    reason = (JSON.parse(body) as { reason?: string }).reason ?? body;
  } catch {
    // not JSON: keep the text
  }
  if (status === 410 || (status === 400 && TOKEN_NOT_VALID_REASONS.has(reason))) return { kind: 'gone', reason };
  if (status === 429 || status >= 500 || status === 0) return { kind: 'retry', status, reason };
  // 403 BadCertificate / TopicDisallowed etc.: configuration problems; the queue retries them too
  // (an operator may fix the certificate), but they are reported as rejections in the logs.
  return { kind: 'rejected', status, reason };
}
