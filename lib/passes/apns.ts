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
// given a raw payload). Here: a few long-lived HTTP/2 sessions per process, each with as many
// streams in flight as APNs's SETTINGS allow, reopened when they close, and the answer as a value
// the job maps to "done", "remove the registration" or "retry". An update pushes a whole batch
// at once through pushAll (lib/updates).

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

/** Streams assumed open per connection until the peer's SETTINGS say (RFC 9113 recommends allowing at least 100). */
const STREAMS_BEFORE_SETTINGS = 100;
/** Streams used per connection at most, whatever the peer allows: APNs itself announces 1,000 at most. */
const MAX_STREAMS_PER_CONNECTION = 1000;
/** Connections per process at most, opened only when every stream of the open ones is busy. */
const DEFAULT_MAX_CONNECTIONS = 4;
/** Pushes started in one go by pushAll before it yields the event loop to other work (claims). */
const PUSHES_PER_TURN = 64;

type Connection = { session: http2.ClientHttp2Session; inFlight: number; maxStreams: number };

/**
 * A small pool of HTTP/2 connections to APNs. Each connection carries as many streams at once as
 * its peer's SETTINGS allow (remoteSettings.maxConcurrentStreams, capped); another is opened only
 * when every stream of the open ones is busy, up to `maxConnections`; a push beyond that waits for
 * a stream. Connections are long-lived and reopened when they close, as Apple asks.
 */
export class ApnsClient {
  private readonly connections: Connection[] = [];
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(private readonly options: ApnsClientOptions & { maxConnections?: number }) {}

  /** One pass-update push to one device. Never throws: every outcome is a value. */
  async push(pushToken: string): Promise<PushOutcome> {
    if (this.closed) return { kind: 'retry', reason: 'client closed' };
    if (!/^[0-9a-fA-F]{1,200}$/.test(pushToken)) return { kind: 'gone', reason: 'BadDeviceToken (not hex)' };
    let connection: Connection;
    try {
      connection = await this.stream();
    } catch (error) {
      return { kind: 'retry', reason: `connect: ${(error as Error).message}` };
    }
    try {
      return await this.send(connection.session, pushToken);
    } finally {
      connection.inFlight--;
      this.wakeOne();
    }
  }

  /**
   * Pushes every token concurrently, as many in flight as the connections allow, and resolves with
   * each one's outcome in order. Pushes are started a few dozen at a time, each turn after the
   * event loop has served what else waits (a claim's request), so a batch never holds the loop.
   * When `signal` aborts, pushes not yet started are not sent: they come back as `retry`.
   */
  async pushAll(tokens: readonly string[], signal?: AbortSignal): Promise<PushOutcome[]> {
    const outcomes: Promise<PushOutcome>[] = [];
    for (let i = 0; i < tokens.length; i += PUSHES_PER_TURN) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      for (const token of tokens.slice(i, i + PUSHES_PER_TURN)) {
        outcomes.push(signal?.aborted ? Promise.resolve({ kind: 'retry', reason: 'aborted' }) : this.push(token));
      }
    }
    return Promise.all(outcomes);
  }

  /** Streams in flight, and connections open: what a benchmark reports. */
  get stats(): { inFlight: number; connections: number } {
    return { inFlight: this.connections.reduce((sum, c) => sum + c.inFlight, 0), connections: this.connections.length };
  }

  close(): void {
    this.closed = true;
    for (const connection of this.connections.splice(0)) connection.session.close();
    for (const wake of this.waiting.splice(0)) wake();
  }

  private send(session: http2.ClientHttp2Session, pushToken: string): Promise<PushOutcome> {
    return new Promise<PushOutcome>((resolve) => {
      let request: http2.ClientHttp2Stream;
      try {
        request = session.request({
          ':method': 'POST',
          ':path': `/3/device/${pushToken}`,
          'apns-topic': this.options.topic,
          'apns-id': randomUUID(),
          'content-type': 'application/json',
        });
      } catch (error) {
        resolve({ kind: 'retry', reason: (error as Error).message });
        return;
      }
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
      request.on('close', () => {
        clearTimeout(timer);
        // 'end' may never come when the stream is reset; 'close' always does.
        resolve(status ? outcomeOf(status, Buffer.concat(chunks).toString('utf8'), apnsId) : { kind: 'retry', reason: 'stream closed without an answer' });
      });
      request.end('{}');
    });
  }

  /** A connection with a free stream, taken (inFlight counted): an open one, a new one, or the first to free one. */
  private async stream(): Promise<Connection> {
    for (;;) {
      if (this.closed) throw new Error('client closed');
      this.prune();
      const free = this.connections.find((c) => c.inFlight < c.maxStreams);
      if (free) {
        free.inFlight++;
        return free;
      }
      if (this.connections.length < (this.options.maxConnections ?? DEFAULT_MAX_CONNECTIONS)) {
        const opened = this.open();
        opened.inFlight++;
        return opened;
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
  }

  private wakeOne(): void {
    this.waiting.shift()?.();
  }

  private prune(): void {
    for (let i = this.connections.length - 1; i >= 0; i--) {
      const { session } = this.connections[i] as Connection;
      if (session.closed || session.destroyed) this.connections.splice(i, 1);
    }
  }

  /** A new connection: APNs asks providers to keep connections open rather than reconnect per push. */
  private open(): Connection {
    const session = http2.connect(this.options.url, {
      cert: this.options.certPem,
      key: this.options.keyPem,
      ...(this.options.ca ? { ca: this.options.ca } : {}),
    });
    const connection: Connection = { session, inFlight: 0, maxStreams: STREAMS_BEFORE_SETTINGS };
    session.on('remoteSettings', (settings) => {
      const allowed = settings.maxConcurrentStreams ?? MAX_STREAMS_PER_CONNECTION;
      connection.maxStreams = Math.max(1, Math.min(allowed, MAX_STREAMS_PER_CONNECTION));
      // More streams than assumed: pushes waiting for one may go now.
      for (let i = connection.inFlight; i < connection.maxStreams && this.waiting.length > 0; i++) this.wakeOne();
    });
    session.on('error', () => {}); // the requests in flight report it; the next push reconnects
    session.on('close', () => {
      const index = this.connections.indexOf(connection);
      if (index >= 0) this.connections.splice(index, 1);
      // Pushes waiting for a stream of this connection may open another.
      for (const wake of this.waiting.splice(0)) wake();
    });
    // An idle connection does not keep the process (or a test) alive.
    session.unref();
    this.connections.push(connection);
    return connection;
  }
}

/** Reasons of a 400 that say the request itself is bad: pushing it again will not change the answer (a bad token is 'gone'). */
export const HOPELESS_REASONS = new Set(['MissingDeviceToken']);

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
