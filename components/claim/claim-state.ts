// The claim flow's states and the pure rules between them: which step a state belongs to, what an
// API failure means for the person, and when an issued message can be signed again. The hook in
// use-claim-flow.ts drives the transitions; the views in ClaimCard.tsx render one state each.

import type { WalletFailure, WalletOption } from '@/components/wallet/types';
import { ClaimApiError, type InitResult } from '@/lib/client';

export type { WalletFailure, WalletOption };

export type Account = { wallet: WalletOption; publicKey: string };

export type Problem =
  | { code: 'declined' }
  | { code: 'wallet-failed' }
  | { code: 'cannot-sign' }
  | { code: 'account-changed' }
  | { code: 'expired' }
  | { code: 'used' }
  | { code: 'rate-limited'; retryAt: number }
  | { code: 'unavailable' }
  | { code: 'rejected' }
  /** The wallet does not meet the service's claim policy; `requirement` says what would make it eligible. */
  | { code: 'not-eligible'; requirement: string | null }
  /** The program stopped taking claims while the page was open: closed, not open yet (when it opens), or gone. */
  | { code: 'closed'; opensAt: string | null }
  | { code: 'sold-out' }
  | { code: 'program-not-found' }
  | { code: 'unexpected'; reference?: string };

export type ClaimState =
  /** Not connected: the view shows the wallet list, the search for wallets, or "no wallet". */
  | { kind: 'idle' }
  | { kind: 'connecting'; wallet: WalletOption }
  | { kind: 'connect-failed'; wallet: WalletOption; reason: 'declined' | 'failed' | 'load-failed' }
  | { kind: 'ready'; account: Account }
  | { kind: 'working'; account: Account; step: 'preparing' | 'signing' | 'submitting'; renewed: boolean }
  | { kind: 'problem'; account: Account; problem: Problem }
  | { kind: 'disconnected'; wallet: WalletOption }
  | { kind: 'done'; account: Account; downloadUrl: string; created: boolean; googleSaveUrl: string | null };

/** The three steps the page shows: Connect, Sign, Add. */
export function stepOf(state: ClaimState): 1 | 2 | 3 {
  switch (state.kind) {
    case 'ready':
    case 'working':
    case 'problem':
      return 2;
    case 'done':
      return 3;
    default:
      return 1;
  }
}

/** When the service does not say (no Retry-After), wait this long before offering a retry. */
const DEFAULT_RETRY_SECONDS = 30;

/** What an API failure means for the person. Never the server's own words: those are for developers. */
export function problemFromApiError(error: unknown, now: number): Problem {
  if (!(error instanceof ClaimApiError)) return { code: 'unexpected' };
  switch (error.code) {
    case 'rate_limited':
      return { code: 'rate-limited', retryAt: now + (error.retryAfterSeconds ?? DEFAULT_RETRY_SECONDS) * 1000 };
    case 'service_unavailable':
    case 'network_error':
      return { code: 'unavailable' };
    case 'message_expired':
      return { code: 'expired' };
    case 'message_already_used':
      // A resent claim whose first sending had gone through after all.
      return { code: 'used' };
    case 'signature_invalid':
    case 'message_not_issued':
      return { code: 'rejected' };
    case 'not_eligible':
      return { code: 'not-eligible', requirement: requirementOf(error.problem?.detail) };
    case 'program_closed':
      return { code: 'closed', opensAt: error.problem?.opensAt ?? null };
    case 'sold_out':
      return { code: 'sold-out' };
    case 'program_not_found':
      return { code: 'program-not-found' };
    default:
      // A bug (ours or a proxy's): the request id lets support find the logged details.
      return { code: 'unexpected', reference: error.problem?.requestId?.slice(0, 8) };
  }
}

/**
 * What the wallet needs to do or hold, from a not_eligible problem's detail ("…: to be eligible,
 * it needs to hold an NFT of …."): the one server text meant for people, written in plain words
 * and never listing an allowlist. Null when the detail is not in that form.
 */
export function requirementOf(detail: string | undefined): string | null {
  const requirement = detail?.match(/it needs to (.+?)\.?$/s)?.[1];
  return requirement === undefined ? null : requirement.trim();
}

export function problemFromWalletFailure(failure: Exclude<WalletFailure, 'disconnected'>): Problem {
  switch (failure) {
    case 'declined':
      return { code: 'declined' };
    case 'cannot-sign':
      return { code: 'cannot-sign' };
    case 'account-changed':
      return { code: 'account-changed' };
    default:
      return { code: 'wallet-failed' };
  }
}

/** A message may be offered for signature again only if it never left the page and has time left. */
const MIN_MESSAGE_LIFE_MS = 60_000;

export function canSignAgain(init: InitResult | null, publicKey: string, now: number): init is InitResult {
  if (!init || init.address !== publicKey) return false;
  const expires = Date.parse(init.expirationTime);
  return Number.isFinite(expires) && expires - now > MIN_MESSAGE_LIFE_MS;
}

/** Seconds left until `at`, rounded up, never negative. */
export function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** 42 -> "42 s" (long: "42 seconds"); 95 -> "1:35" (long: "1 min 35 s"). */
export function formatWait(seconds: number, long = false): string {
  if (seconds < 60) return long ? `${seconds} second${seconds === 1 ? '' : 's'}` : `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return long ? `${minutes} min ${rest} s` : `${minutes}:${String(rest).padStart(2, '0')}`;
}
