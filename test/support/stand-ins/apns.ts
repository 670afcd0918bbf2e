// A local stand-in for Apple's push service (APNs, https://api.push.apple.com) as Wallet pass
// updates use it: an HTTP/2 server over TLS on 127.0.0.1 that answers a push exactly as APNs
// documents, records it, and can be told how to answer a given device token.
//
// What Apple documents, and what this server does about it:
// - "Sending notification requests to APNs": `POST /3/device/<device token>` over HTTP/2, headers
//   `apns-topic`, `apns-push-type`, `apns-id` (a UUID), `apns-priority` (10, 5 or 1),
//   `apns-expiration` (UNIX seconds), `apns-collapse-id` (at most 64 bytes); payload at most 4096
//   bytes.
// - "Handling notification responses from APNs": 200 with an empty body and an `apns-id` header
//   (the request's, or a new UUID); otherwise a JSON body `{"reason": "<error string>"}`, and for
//   410 also `"timestamp"`, the time in milliseconds since the epoch at which APNs confirmed the
//   token was no longer valid for the topic. The status codes and reason strings below are
//   Apple's (BadDeviceToken, MissingTopic, ...), checked in this order.
// - Wallet ("Updating a pass", PassKit web service): the push authenticates with TLS client
//   certificate authentication using the Pass Type ID certificate (the one that signs the pass),
//   its topic is the pass type identifier, and its payload is an empty JSON dictionary `{}`.
//   Apple's Wallet pages say nothing about `apns-push-type`; it is recorded, and rejected only
//   when it is not one of the values Apple lists (400 InvalidPushType).
//
// Where this server is stricter than APNs, on purpose:
// - A request without `apns-topic` is 400 MissingTopic. APNs may fall back to the subject of a
//   single-topic certificate, but the contract has the service send the topic, so a push
//   without it is a bug we want a test to see.
// - A payload that is not a JSON object is 400 with reason `BadPayload`. Apple lists no reason
//   for it (only PayloadEmpty and PayloadTooLarge); the name is this stand-in's own.
//
// Use: `const apns = await ApnsStandIn.start({ clientCa, topic })`, point the service's
// APNS_URL at `apns.url` and give its process `NODE_EXTRA_CA_CERTS=apns.caFile` so it trusts
// this server's generated certificate; script answers with `apns.answer(token, ...)`; read
// `apns.pushes` or `await apns.waitForPushes(n)`; `await apns.close()`. It answers from the
// test's own event loop: start the process under test asynchronously (an execFileSync would
// block this server and the push would hang).
import { randomUUID, X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { createCertificateAuthority, issueCertificate } from './certificates';

/** Apple: "The maximum size of a notification payload is 4096 bytes" for regular remote notifications. */
export const APNS_MAX_PAYLOAD_BYTES = 4096;

/** The `apns-push-type` values Apple lists (a header with any other value is 400 InvalidPushType). */
export const APNS_PUSH_TYPES = [
  'alert',
  'background',
  'location',
  'voip',
  'complication',
  'fileprovider',
  'mdm',
  'liveactivity',
  'pushtotalk',
  'widgets',
] as const;

/** This stand-in's own reason for a payload that is not a JSON object (Apple documents none). */
export const STAND_IN_BAD_PAYLOAD = 'BadPayload';

/** How to answer a push: success, or an APNs error status with its reason string. */
export type ApnsAnswer =
  | { status: 200 }
  | { status: 400 | 403 | 404 | 405 | 413 | 429 | 500 | 503; reason: string }
  /** `timestamp`: milliseconds since the epoch; now when left out. */
  | { status: 410; reason: 'Unregistered' | 'ExpiredToken'; timestamp?: number };

export type ClientCertificate = {
  /** The subject as Node prints it, one attribute per line joined with ", " (e.g. "UID=pass.x, CN=Pass Type ID: pass.x, ..."). */
  subject: string;
  /** SHA-256 fingerprint, colon-separated hex as Node gives it. */
  fingerprint256: string;
  /** Whether it chained to `clientCa` (always false when no `clientCa` was given). */
  authorized: boolean;
};

export type RecordedPush = {
  method: string;
  path: string;
  /** The device token from the path ('' when the path had none). */
  token: string;
  topic: string | undefined;
  pushType: string | undefined;
  /** The apns-id this server answered with. */
  apnsId: string;
  /** Request headers without the HTTP/2 pseudo-headers; repeated ones joined with ", ". */
  headers: Record<string, string>;
  body: string;
  clientCert: ClientCertificate | null;
  status: number;
  reason: string | undefined;
  at: Date;
};

export type ApnsStandInOptions = {
  /** PEM of the CA that must have issued the client certificate (for Wallet: Apple's WWDR, or the development one). Without it any client certificate is accepted. */
  clientCa?: string;
  /** The only topic allowed (for Wallet: the pass type identifier); others are 400 TopicDisallowed. */
  topic?: string;
  /** How long each answer takes, as APNs's own round trip does: keeps pushes in flight for a while. */
  answerDelayMs?: number;
  /**
   * SETTINGS_MAX_CONCURRENT_STREAMS this server announces per connection (APNs announces up to
   * 1,000); left out, Node's default (no limit).
   */
  maxConcurrentStreams?: number;
  /** false: keep only counts (`received`, `deliveries`), not each push: a benchmark's 100,000 pushes. */
  record?: boolean;
};

type Rejection = { status: number; reason: string };

const HEX_TOKEN = /^[0-9a-fA-F]+$/;
const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const DEVICE_PATH = '/3/device/';

export class ApnsStandIn {
  /** Every request, accepted or not, in arrival order. */
  readonly pushes: RecordedPush[] = [];
  /** Pushes answered, recorded or not. */
  received = 0;
  /** Pushes answered 200, per device token (also when not recording). */
  readonly deliveries = new Map<string, number>();
  /** Streams open at once, now and at most (over every connection). */
  openStreams = 0;
  peakStreams = 0;
  private readonly answers = new Map<string, ApnsAnswer | ApnsAnswer[]>();
  private readonly waiters = new Set<() => void>();
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  private readonly certificates = new WeakMap<http2.ServerHttp2Session, ClientCertificate | null>();

  private constructor(
    private readonly server: http2.Http2SecureServer,
    private readonly options: ApnsStandInOptions,
    private readonly dir: string,
    /** `https://127.0.0.1:<port>`: what APNS_URL should be. */
    readonly url: string,
    readonly port: number,
    /** A file holding the CA certificate (PEM) that issued this server's certificate, for NODE_EXTRA_CA_CERTS. */
    readonly caFile: string,
    readonly caPem: string,
  ) {}

  /** Generates a CA and a server certificate for 127.0.0.1 and localhost, and listens on an ephemeral port. */
  static async start(options: ApnsStandInOptions = {}): Promise<ApnsStandIn> {
    const ca = createCertificateAuthority('APNs stand-in test CA (not Apple)');
    const serverCert = issueCertificate(ca, {
      purpose: 'server',
      subject: [{ shortName: 'CN', value: 'api.push.apple.com stand-in' }],
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1'],
    });
    const dir = await mkdtemp(path.join(os.tmpdir(), 'apns-stand-in-'));
    const caFile = path.join(dir, 'ca.pem');
    await writeFile(caFile, ca.certPem);

    const server = http2.createSecureServer({
      key: serverCert.keyPem,
      cert: serverCert.certPem,
      // APNs authenticates Wallet pushes by the client certificate. The handshake must not fail
      // on a bad one: APNs answers such a request 403 BadCertificate, so this server does too.
      requestCert: true,
      rejectUnauthorized: false,
      ...(options.clientCa ? { ca: options.clientCa } : {}),
      allowHTTP1: false, // APNs speaks HTTP/2 only
      ...(options.maxConcurrentStreams ? { settings: { maxConcurrentStreams: options.maxConcurrentStreams } } : {}),
    });
    const port = await listen(server);
    const standIn = new ApnsStandIn(server, options, dir, `https://127.0.0.1:${port}`, port, caFile, ca.certPem);
    server.on('session', (session) => standIn.track(session));
    // Node passes the raw header list as a fourth argument (@types/node 20 does not declare it): it
    // shows repeated headers, which the parsed object folds together.
    server.on('stream', (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, _flags: number, rawHeaders?: string[]) =>
      standIn.receive(stream, headers, rawHeaders ?? []),
    );
    return standIn;
  }

  /**
   * Scripts the answers for one device token. One answer is given to every later push to that
   * token (a token that is gone stays gone); a list is used up one per push, after which pushes
   * succeed again (e.g. `[{status: 503, reason: 'ServiceUnavailable'}, {status: 200}]` to test a retry).
   */
  answer(token: string, answer: ApnsAnswer | ApnsAnswer[]): void {
    this.answers.set(token, Array.isArray(answer) ? [...answer] : answer);
  }

  /** Resolves with the recorded pushes once at least `count` have arrived; rejects after `timeoutMs`. */
  waitForPushes(count: number, timeoutMs = 5_000): Promise<RecordedPush[]> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.pushes.length < count) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve([...this.pushes]);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`APNs stand-in: ${this.pushes.length} push(es) arrived within ${timeoutMs} ms, expected ${count}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** Stops listening, drops open HTTP/2 sessions (a push client keeps one open), removes the CA file. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const session of this.sessions) session.destroy();
    await closed;
    await rm(this.dir, { recursive: true, force: true });
  }

  private track(session: http2.ServerHttp2Session): void {
    this.sessions.add(session);
    session.on('close', () => this.sessions.delete(session));
    session.on('error', () => {}); // a client going away mid-request is not this server's failure
    this.certificates.set(session, clientCertificateOf(session.socket as TLSSocket, Boolean(this.options.clientCa)));
  }

  private receive(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, rawHeaders: string[]): void {
    stream.on('error', () => {});
    this.openStreams++;
    if (this.openStreams > this.peakStreams) this.peakStreams = this.openStreams;
    stream.on('close', () => this.openStreams--);
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      const body = Buffer.concat(chunks);
      const clientCert = this.certificates.get(stream.session as http2.ServerHttp2Session) ?? null;
      const answer = () => {
        if (!stream.destroyed) this.respond(stream, headers, rawHeaders, body, clientCert);
      };
      if (this.options.answerDelayMs) setTimeout(answer, this.options.answerDelayMs);
      else answer();
    });
  }

  private respond(
    stream: http2.ServerHttp2Stream,
    headers: http2.IncomingHttpHeaders,
    rawHeaders: string[],
    body: Buffer,
    clientCert: ClientCertificate | null,
  ): void {
    const requestId = header(headers, 'apns-id');
    // APNs echoes the request's apns-id, or makes a UUID when there is none (or it is not one).
    const apnsId = requestId !== undefined && UUID.test(requestId) ? requestId : randomUUID();
    const method = header(headers, ':method') ?? '';
    const requestPath = header(headers, ':path') ?? '';
    const token = requestPath.startsWith(DEVICE_PATH) ? requestPath.slice(DEVICE_PATH.length) : '';

    const rejection = this.validate({ method, requestPath, token, headers, rawHeaders, body, clientCert });
    const outcome: ApnsAnswer | Rejection = rejection ?? this.nextAnswer(token);

    let responseBody: string | undefined;
    if (outcome.status !== 200) {
      const reason = (outcome as Rejection).reason;
      responseBody = JSON.stringify(outcome.status === 410 ? { reason, timestamp: (outcome as { timestamp?: number }).timestamp ?? Date.now() } : { reason });
    }
    this.record({
      method,
      path: requestPath,
      token,
      topic: header(headers, 'apns-topic'),
      pushType: header(headers, 'apns-push-type'),
      apnsId,
      headers: plainHeaders(headers),
      body: body.toString('utf8'),
      clientCert,
      status: outcome.status,
      reason: outcome.status === 200 ? undefined : (outcome as Rejection).reason,
      at: new Date(),
    });

    if (stream.destroyed) return;
    if (responseBody === undefined) {
      stream.respond({ ':status': 200, 'apns-id': apnsId }, { endStream: true });
    } else {
      stream.respond({ ':status': outcome.status, 'apns-id': apnsId, 'content-type': 'application/json' });
      stream.end(responseBody);
    }
  }

  /** The checks APNs documents, in order; undefined when the push is acceptable. */
  private validate(request: {
    method: string;
    requestPath: string;
    token: string;
    headers: http2.IncomingHttpHeaders;
    rawHeaders: string[];
    body: Buffer;
    clientCert: ClientCertificate | null;
  }): Rejection | undefined {
    const { headers, body } = request;
    // Certificate-based authentication comes first: nothing else is looked at without it.
    if (!request.clientCert) return { status: 403, reason: 'BadCertificate' };
    if (this.options.clientCa && !request.clientCert.authorized) return { status: 403, reason: 'BadCertificate' };

    if (request.method !== 'POST') return { status: 405, reason: 'MethodNotAllowed' };
    if (!request.requestPath.startsWith(DEVICE_PATH)) return { status: 404, reason: 'BadPath' };
    if (request.token === '') return { status: 400, reason: 'MissingDeviceToken' };
    if (!HEX_TOKEN.test(request.token)) return { status: 400, reason: 'BadDeviceToken' };
    if (hasDuplicateApnsHeaders(request.rawHeaders)) return { status: 400, reason: 'DuplicateHeaders' };

    const apnsId = header(headers, 'apns-id');
    if (apnsId !== undefined && !UUID.test(apnsId)) return { status: 400, reason: 'BadMessageId' };
    const topic = header(headers, 'apns-topic');
    if (topic === undefined || topic === '') return { status: 400, reason: 'MissingTopic' };
    if (this.options.topic !== undefined && topic !== this.options.topic) return { status: 400, reason: 'TopicDisallowed' };
    const pushType = header(headers, 'apns-push-type');
    if (pushType !== undefined && !(APNS_PUSH_TYPES as readonly string[]).includes(pushType)) return { status: 400, reason: 'InvalidPushType' };
    const priority = header(headers, 'apns-priority');
    if (priority !== undefined && !['10', '5', '1'].includes(priority)) return { status: 400, reason: 'BadPriority' };
    const expiration = header(headers, 'apns-expiration');
    if (expiration !== undefined && !/^\d+$/.test(expiration)) return { status: 400, reason: 'BadExpirationDate' };
    const collapseId = header(headers, 'apns-collapse-id');
    if (collapseId !== undefined && Buffer.byteLength(collapseId) > 64) return { status: 400, reason: 'BadCollapseId' };

    if (body.length === 0) return { status: 400, reason: 'PayloadEmpty' };
    if (body.length > APNS_MAX_PAYLOAD_BYTES) return { status: 413, reason: 'PayloadTooLarge' };
    if (!isJsonObject(body)) return { status: 400, reason: STAND_IN_BAD_PAYLOAD };
    return undefined;
  }

  private nextAnswer(token: string): ApnsAnswer {
    const scripted = this.answers.get(token);
    if (scripted === undefined) return { status: 200 };
    if (!Array.isArray(scripted)) return scripted;
    const next = scripted.shift();
    if (scripted.length === 0) this.answers.delete(token);
    return next ?? { status: 200 };
  }

  private record(push: RecordedPush): void {
    this.received++;
    if (push.status === 200) this.deliveries.set(push.token, (this.deliveries.get(push.token) ?? 0) + 1);
    if (this.options.record === false) return;
    this.pushes.push(push);
    for (const waiter of [...this.waiters]) waiter();
  }
}

function listen(server: http2.Http2SecureServer): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The certificate a session's client presented, read once per connection. */
function clientCertificateOf(socket: TLSSocket, checkedAgainstCa: boolean): ClientCertificate | null {
  const peer = socket.getPeerCertificate();
  if (!peer?.raw) return null;
  const x509 = new X509Certificate(peer.raw);
  return {
    subject: x509.subject.split('\n').join(', '),
    fingerprint256: x509.fingerprint256,
    authorized: checkedAgainstCa && socket.authorized,
  };
}

function header(headers: http2.IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function plainHeaders(headers: http2.IncomingHttpHeaders): Record<string, string> {
  const plain: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    plain[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return plain;
}

/** Apple: 400 DuplicateHeaders when "one or more headers are repeated"; only the apns-* ones matter here. */
function hasDuplicateApnsHeaders(rawHeaders: string[]): boolean {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (!name.startsWith('apns-')) continue;
    if (seen.has(name)) return true;
    seen.add(name);
  }
  return false;
}

function isJsonObject(body: Buffer): boolean {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
