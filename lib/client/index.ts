// A small typed client of the HTTP API, for browsers and Node (it needs only fetch). The claim
// page and the command-line claim both use it. Every call resolves to a typed result or rejects
// with a ClaimApiError carrying the service's problem code (or a network/unexpected code).
// Its types come from the schemas the service validates with (type-only imports: no zod, no
// server code in a browser bundle).
import type { z } from 'zod';
import type { claimBodySchema, claimResponseSchema, initResponseSchema } from '../api/endpoints/claims.schemas';
import type { passCheckSchema } from '../api/endpoints/passes.schemas';
import type { ErrorCode, Problem } from '../errors';

/** GET /api/v1/claim/init: the message to sign, and its Sign In With Solana fields. */
export type InitResult = z.output<typeof initResponseSchema>;

/** POST /api/v1/claim/wallet-pass: `walletType` defaults to Generic. */
export type ClaimRequest = z.input<typeof claimBodySchema>;

export type ClaimResult = z.output<typeof claimResponseSchema> & {
  /** true for 201 (a new pass), false for 200 (the wallet already had one). */
  created: boolean;
};

export type DownloadResult = { bytes: Uint8Array; filename: string; etag: string | null };

/** GET /api/v1/passes/verify: a pass this service issued, as a scanner at the door sees it. */
export type PassCheck = z.output<typeof passCheckSchema>;

/** A problem+json body as the service sends it. */
export type ProblemBody = Problem;

/**
 * The service's problem codes, plus two of the client's own: `network_error` (no answer at all:
 * offline, DNS, refused, timed out) and `unexpected_response` (an answer that is not this API's).
 */
export type ClientErrorCode = ErrorCode | 'network_error' | 'unexpected_response';

export class ClaimApiError extends Error {
  constructor(
    readonly code: ClientErrorCode,
    /** The HTTP status; 0 when there was no answer. */
    readonly status: number,
    readonly detail: string,
    readonly problem?: ProblemBody,
    /** Seconds to wait before retrying, from Retry-After on a 429 or 503. */
    readonly retryAfterSeconds?: number,
  ) {
    super(`${code}: ${detail}`);
    this.name = 'ClaimApiError';
  }
}

export const isClaimApiError = (error: unknown): error is ClaimApiError => error instanceof ClaimApiError;

export type ClientOptions = {
  /** The service origin, e.g. https://passes.example.com. Empty for same-origin (the claim page). */
  baseUrl?: string;
  fetch?: typeof fetch;
  /** Give up on a request after this long (network_error). Default 30 s. */
  timeoutMs?: number;
};

const DEFAULT_TIMEOUT_MS = 30_000;

export function createClaimClient(options: ClientOptions = {}) {
  const baseUrl = (options.baseUrl ?? '').replace(/\/+$/, '');
  const doFetch = options.fetch ?? ((input: RequestInfo | URL, init?: RequestInit) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  async function send(url: string, init: RequestInit = {}): Promise<Response> {
    let response: Response;
    try {
      response = await doFetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new ClaimApiError('network_error', 0, `Could not reach ${originOf(url)}: ${networkReason(error, timeoutMs)}.`);
    }
    if (response.ok) return response;
    throw await problemFrom(response);
  }

  return {
    /** GET /api/v1/claim/init: a single-use sign-in message for `publicKey`, for `program` (none: the default program). */
    async init(publicKey: string, program?: string): Promise<InitResult> {
      const programQuery = program ? `&program=${encodeURIComponent(program)}` : '';
      const response = await send(`${baseUrl}/api/v1/claim/init?publicKey=${encodeURIComponent(publicKey)}${programQuery}`);
      return expectStrings(await readJson(response), INIT_FIELDS, response.status) as InitResult;
    },

    /** POST /api/v1/claim/wallet-pass: the download URL of the wallet's pass. */
    async claim(request: ClaimRequest): Promise<ClaimResult> {
      const response = await send(`${baseUrl}/api/v1/claim/wallet-pass`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      const { downloadUrl } = expectStrings(await readJson(response), ['downloadUrl'], response.status);
      return { downloadUrl, created: response.status === 201 };
    },

    /**
     * The "Save to Google Wallet" link of a pass, or null when the service offers none.
     * GET /api/v1/passes/google?pass=<id> answers 200 {saveUrl} when Google Wallet is configured
     * and 404 google_wallet_not_configured when it is not; a service that predates the endpoint
     * answers a bare 404. Any other failure (an unknown pass included) throws.
     */
    async googleSaveUrl(downloadUrl: string): Promise<string | null> {
      const passId = passIdOf(downloadUrl);
      if (!passId) throw new ClaimApiError('unexpected_response', 0, 'The download URL has no pass id.');
      const url = `${baseUrl}/api/v1/passes/google?pass=${encodeURIComponent(passId)}`;
      let response: Response;
      try {
        response = await send(url);
      } catch (error) {
        if (error instanceof ClaimApiError && (error.code === 'google_wallet_not_configured' || (error.status === 404 && !error.problem))) {
          return null;
        }
        throw error;
      }
      const body = (await readJson(response)) as { saveUrl?: unknown };
      // Only an https link becomes an href: anything else (javascript:, data:) would be script.
      if (typeof body.saveUrl !== 'string' || !body.saveUrl.startsWith('https://')) {
        throw new ClaimApiError('unexpected_response', response.status, 'The answer has no https saveUrl.');
      }
      return body.saveUrl;
    },

    /** GET the downloadUrl: the .pkpass bytes. */
    async download(downloadUrl: string): Promise<DownloadResult> {
      const response = await send(downloadUrl);
      const disposition = response.headers.get('content-disposition') ?? '';
      const filename = /filename="([^"/\\]+)"/.exec(disposition)?.[1] ?? 'wallet-pass.pkpass';
      return { bytes: new Uint8Array(await response.arrayBuffer()), filename, etag: response.headers.get('etag') };
    },

    /** GET /api/v1/passes/verify: what the service issued under a pass's public serial number. */
    async verifyPass(serialNumber: string): Promise<PassCheck> {
      const response = await send(`${baseUrl}/api/v1/passes/verify?serial=${encodeURIComponent(serialNumber)}`);
      return (await readJson(response)) as PassCheck;
    },
  };
}

export type ClaimClient = ReturnType<typeof createClaimClient>;

const INIT_FIELDS = ['domain', 'nonce', 'issuedAt', 'expirationTime', 'message', 'address', 'statement', 'uri', 'version', 'chainId'] as const;

/** The `pass` query parameter of a downloadUrl. */
function passIdOf(downloadUrl: string): string | null {
  try {
    return new URL(downloadUrl, 'http://relative.invalid').searchParams.get('pass');
  } catch {
    return null;
  }
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    throw new ClaimApiError('unexpected_response', response.status, `The answer (HTTP ${response.status}) is not JSON.`);
  }
}

/** The body, if it is an object with each of `fields` as a string: an answer of another shape is not this API's. */
function expectStrings<K extends string>(body: unknown, fields: readonly K[], status: number): Record<K, string> {
  const record = body as Record<string, unknown> | null;
  const missing = fields.filter((field) => typeof record?.[field] !== 'string');
  if (typeof body !== 'object' || body === null || missing.length > 0) {
    throw new ClaimApiError('unexpected_response', status, `The answer (HTTP ${status}) lacks ${missing.join(', ') || 'an object'}.`);
  }
  return record as Record<K, string>;
}

/** The error a failed answer stands for (shared with the operator client, ./operator.ts). */
export async function problemFrom(response: Response): Promise<ClaimApiError> {
  const retryAfter = Number(response.headers.get('retry-after'));
  const retryAfterSeconds = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const problem = body as Partial<ProblemBody> | undefined;
  if (problem && typeof problem.code === 'string' && typeof problem.detail === 'string') {
    return new ClaimApiError(problem.code, response.status, problem.detail, problem as ProblemBody, retryAfterSeconds);
  }
  // Something in front of the service (a proxy, a load balancer) answered instead.
  const code: ClientErrorCode = response.status === 503 || response.status === 502 || response.status === 504 ? 'service_unavailable' : 'unexpected_response';
  return new ClaimApiError(code, response.status, `HTTP ${response.status} ${response.statusText}`.trim(), undefined, retryAfterSeconds);
}

function originOf(url: string): string {
  if (url.startsWith('/')) return 'the service';
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Why fetch failed, in words: Node's fetch says only "fetch failed" and keeps the reason in `cause`. */
function networkReason(error: unknown, timeoutMs: number): string {
  const { name, message, cause } = (error ?? {}) as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (name === 'TimeoutError') return `no answer within ${Math.round(timeoutMs / 1000)} seconds`;
  const reasons: Record<string, string> = {
    ECONNREFUSED: 'connection refused (is the service running on that port?)',
    ENOTFOUND: 'no such host',
    EAI_AGAIN: 'the host name could not be resolved',
    ECONNRESET: 'the connection was reset',
    ETIMEDOUT: 'the connection timed out',
    EHOSTUNREACH: 'the host is unreachable',
    ENETUNREACH: 'the network is unreachable',
  };
  return (cause?.code && reasons[cause.code]) ?? cause?.message ?? message ?? 'the request failed';
}
