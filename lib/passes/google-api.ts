// Google Wallet's REST API (GOOGLE_WALLET_API_URL, https://walletobjects.googleapis.com by
// default): the pass's Generic object is created there before its save link is handed out, and
// PATCHed when the pass changes (state INACTIVE when voided, ACTIVE when restored).
//
// Access tokens come from OAuth 2.0's JWT bearer grant, as Google's "Using OAuth 2.0 for Server to
// Server Applications" describes: an RS256 assertion signed with the service account's key, POSTed
// to the key's token_uri. Written with jose (already here for the save-link JWT) rather than
// google-auth-library: its current major (11) needs Node 22, and 10.x brings gaxios and
// gcp-metadata (metadata-server probing) for what is one form POST and a cached token.
//
// Every Wallet API call waits for its turn in one pacer per instance (GOOGLE_WALLET_RPS, lib/pacing.ts):
// Google allows an issuer about 20 calls a second, and a program-wide change or message calls it
// once per pass. The token endpoint is not paced: it is OAuth's, not the Wallet API's quota, and
// is called once an hour, so a token renewal never waits behind a queue of object calls that
// themselves wait for it. A 429 holds every call (Retry-After, else 1 s, 2 s, 4 s...) and the
// call is sent again, not dropped; past `maxWaitMs` of such waits in one call it throws, and
// the queue job that made it retries later.
import { SignJWT } from 'jose';
import { Pacer } from '../pacing';
import type { PassContent } from './content';
import { type GoogleWallet, genericObject, googleObjectId } from './google-wallet';

export const WALLET_OBJECT_SCOPE = 'https://www.googleapis.com/auth/wallet_object.issuer';
const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** A token is renewed this long before Google says it expires. */
const RENEW_MARGIN_MS = 5 * 60 * 1000;
/** The first wait after a 429 without Retry-After, doubled for each 429 in a row, up to the cap. */
const BACKOFF_BASE_MS = 1000;
const BACKOFF_CAP_MS = 16_000;
/** The 429 waits one call sits through before it throws (and its queue job retries later). */
const DEFAULT_MAX_WAIT_MS = 30_000;
/** How Google names the refusal of a 4th notifying message of one object in 24 hours. */
const NOTIFICATION_QUOTA = /QuotaExceeded/i;

/** `TEXT_AND_NOTIFY` adds the message and notifies the holder's phone (3 per object in 24 h at most); `TEXT` only adds it. */
export type GoogleMessageType = 'TEXT' | 'TEXT_AND_NOTIFY';
export type GoogleMessage = { id: string; header: string; body: string; messageType: GoogleMessageType };

export class GoogleApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'GoogleApiError';
  }

  /** Google refused a notifying message: the object had its 3 notifications of the last 24 hours. */
  get notificationQuota(): boolean {
    return this.status === 429 && NOTIFICATION_QUOTA.test(this.message);
  }
}

export type GoogleWalletApiOptions = {
  tokenUri: string;
  apiUrl: string;
  timeoutMs?: number;
  /** Wallet API calls per second (GOOGLE_WALLET_RPS). */
  rps: number;
  /** The 429 waits one call may sit through before it throws (default 30 s). */
  maxWaitMs?: number;
};

export class GoogleWalletApi {
  private token: { value: string; renewAt: number } | undefined;
  private pendingToken: Promise<string> | undefined;
  /** The classes known to exist, each with the program version it was made for ('' for the issuer's own). */
  private readonly classesReady = new Map<string, string>();
  /** Every Wallet API call's turn (one lane: object changes and messages alike). */
  readonly pacer: Pacer<'call'>;
  /** 429s in a row, for the backoff without Retry-After; 0 after any answer that is not 429. */
  private refusedInARow = 0;

  constructor(
    private readonly google: GoogleWallet,
    private readonly options: GoogleWalletApiOptions,
  ) {
    // Steady: GOOGLE_WALLET_RPS (15 by default) is set below Google's 20, so keeping to the rate
    // matters more than a one-second window that may hold one more call.
    this.pacer = new Pacer({ rps: options.rps, lanes: ['call'], setting: 'GOOGLE_WALLET_RPS', steady: true });
  }

  /**
   * Adds a message to the pass's object (its details), notifying its holder's phone when
   * `messageType` is TEXT_AND_NOTIFY; false when Google has no such object (the holder never
   * saved it). A refusal for the notification quota throws a GoogleApiError whose
   * `notificationQuota` is true. `signal` (a queue job's) ends the wait for its turn and the call.
   */
  async addMessage(pass: Pick<PassContent, 'serialNumber'>, message: GoogleMessage, signal?: AbortSignal): Promise<boolean> {
    const path = `/genericObject/${encodeURIComponent(googleObjectId(pass, this.google))}/addMessage`;
    return (await this.call('POST', path, { message }, [404], signal)) !== 404;
  }

  /**
   * Makes the object of `content` hold its current fields and state: PATCH it, and when Google
   * has none yet, insert it (and its class, the first time: the issuer's, or its program's).
   * Concurrent inserts of one object end in a PATCH of the later one.
   */
  async upsertObject(content: PassContent): Promise<void> {
    const object = { ...genericObject(content, this.google), state: content.voided ? 'INACTIVE' : 'ACTIVE' };
    const path = `/genericObject/${encodeURIComponent(object.id)}`;
    // Patch semantics: a field sent as null is cleared (an expiry the operator removed; a program
    // pass's subheader, when its design's first primary field lost its label).
    const cleared = { validTimeInterval: null, ...(content.program ? { subheader: null } : {}) };
    const patched = await this.call('PATCH', path, { ...cleared, ...object }, [404]);
    if (patched !== 404) return;
    await this.ensureClass(object.classId, content.program?.version ?? '');
    const inserted = await this.call('POST', '/genericObject', object, [409]);
    if (inserted === 409) await this.call('PATCH', path, { ...cleared, ...object });
  }

  /**
   * Makes the class exist before an object names it: inserted once per class and program version
   * in this process (a class that exists already is 409, which is what is wanted). The class holds
   * only its id: what a pass shows is its object's.
   */
  private async ensureClass(id: string, version: string): Promise<void> {
    if (this.classesReady.get(id) === version) return;
    await this.call('POST', '/genericClass', { id }, [409]);
    this.classesReady.set(id, version);
  }

  /**
   * One API call, in its turn; the status when it is one of `tolerated`, otherwise throws unless
   * 2xx. A stale token is renewed once; a 429 is waited out and sent again (see the top).
   */
  private async call(method: string, path: string, body: unknown, tolerated: number[] = [], signal?: AbortSignal): Promise<number> {
    const maxWaitMs = this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
    let renewed = false;
    let waited = 0;
    for (;;) {
      await this.pacer.take('call', signal);
      const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 10_000);
      const response = await fetch(`${this.options.apiUrl}/walletobjects/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${await this.accessToken()}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const text = await response.text();
      const failure = () =>
        new GoogleApiError(
          response.status,
          `Google Wallet API ${method} ${path.split('/')[1]}${path.endsWith('/addMessage') ? '.addMessage' : ''}: ${response.status} ${googleMessage(text)}`,
        );
      if (response.status === 429) {
        const error = failure();
        // Not a pace: Google's count of one object's notifications. Waiting would not help.
        if (error.notificationQuota) throw error;
        this.refusedInARow++;
        const wait = retryAfterMs(response.headers.get('retry-after')) ?? Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (this.refusedInARow - 1));
        this.pacer.hold(wait);
        waited += wait;
        if (waited > maxWaitMs) throw error;
        continue;
      }
      this.refusedInARow = 0;
      if (response.status === 401 && !renewed) {
        this.token = undefined;
        renewed = true;
        continue;
      }
      if (response.ok) return response.status;
      if (tolerated.includes(response.status)) return response.status;
      throw failure();
    }
  }

  private async accessToken(): Promise<string> {
    if (this.token && Date.now() < this.token.renewAt) return this.token.value;
    // One token request at a time: a burst of pushes shares it.
    this.pendingToken ??= this.fetchToken().finally(() => (this.pendingToken = undefined));
    return this.pendingToken;
  }

  private async fetchToken(): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({ scope: WALLET_OBJECT_SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
      .setIssuer(this.google.clientEmail)
      .setAudience(this.options.tokenUri)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(this.google.key);
    const response = await fetch(this.options.tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion }),
      signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
    });
    const text = await response.text();
    if (!response.ok) throw new GoogleApiError(response.status, `Google token endpoint: ${response.status} ${oauthMessage(text)}`);
    const { access_token: value, expires_in: expiresIn } = JSON.parse(text) as { access_token: string; expires_in?: number };
    this.token = { value, renewAt: Date.now() + Math.max(60_000, (expiresIn ?? 3600) * 1000 - RENEW_MARGIN_MS) };
    return value;
  }
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110), in ms; undefined when absent or unreadable. */
function retryAfterMs(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Google's error message, never the request (it may carry the pass's fields). */
function googleMessage(text: string): string {
  try {
    return String((JSON.parse(text) as { error?: { message?: string } }).error?.message ?? '').slice(0, 300);
  } catch {
    return '';
  }
}

function oauthMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: string; error_description?: string };
    return `${body.error ?? ''} ${body.error_description ?? ''}`.trim().slice(0, 300);
  } catch {
    return '';
  }
}
