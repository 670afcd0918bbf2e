import { describe, expect, it } from 'vitest';
import { ClaimApiError, type InitResult } from '@/lib/client';
import { type Account, canSignAgain, formatWait, problemFromApiError, requirementOf, secondsUntil, stepOf } from './claim-state';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const account: Account = { wallet: { name: 'Phantom', icon: 'data:,' }, publicKey: 'A'.repeat(44) };

function issued(expiresInMs: number, address = account.publicKey): InitResult {
  return {
    domain: 'passes.example.com',
    nonce: 'abcdefghijklmnop',
    issuedAt: new Date(NOW).toISOString(),
    expirationTime: new Date(NOW + expiresInMs).toISOString(),
    message: 'text',
    address,
    statement: 'Sign',
    uri: 'https://passes.example.com',
    version: '1',
    chainId: 'mainnet',
  };
}

describe('problemFromApiError: what a failure means for the person', () => {
  it('a wallet that is not eligible learns what would make it eligible, in the service’s plain words', () => {
    const detail = 'This wallet cannot claim a pass yet: to be eligible, it needs to hold at least 5 base units of the token Mint111 (it holds 2).';
    const problem = { type: '/docs#problem-not_eligible', title: 'Not eligible', status: 403, detail, code: 'not_eligible' as const };
    expect(problemFromApiError(new ClaimApiError('not_eligible', 403, detail, problem), NOW)).toEqual({
      code: 'not-eligible',
      requirement: 'hold at least 5 base units of the token Mint111 (it holds 2)',
    });
    expect(requirementOf('Not eligible.')).toBeNull();
    expect(problemFromApiError(new ClaimApiError('not_eligible', 403, 'x'), NOW)).toEqual({ code: 'not-eligible', requirement: null });
  });

  it('a program that closed, has not opened or sold out while the page was open says so (with when it opens)', () => {
    const opensAt = '2026-12-01T09:00:00.000Z';
    const notOpen = {
      type: '/docs#problem-program_closed',
      title: 'Program closed',
      status: 403,
      detail: 'not open yet',
      code: 'program_closed' as const,
      opensAt,
    };
    expect(problemFromApiError(new ClaimApiError('program_closed', 403, 'not open yet', notOpen), NOW)).toEqual({ code: 'closed', opensAt });
    expect(problemFromApiError(new ClaimApiError('program_closed', 403, 'closed'), NOW)).toEqual({ code: 'closed', opensAt: null });
    expect(problemFromApiError(new ClaimApiError('sold_out', 403, 'sold out'), NOW)).toEqual({ code: 'sold-out' });
    expect(problemFromApiError(new ClaimApiError('program_not_found', 404, 'gone'), NOW)).toEqual({ code: 'program-not-found' });
  });

  it('turns a 429 into a retry time from Retry-After', () => {
    const problem = problemFromApiError(new ClaimApiError('rate_limited', 429, 'slow down', undefined, 42), NOW);
    expect(problem).toEqual({ code: 'rate-limited', retryAt: NOW + 42_000 });
  });

  it('waits 30 seconds when a 429 has no Retry-After', () => {
    expect(problemFromApiError(new ClaimApiError('rate_limited', 429, 'slow down'), NOW)).toEqual({ code: 'rate-limited', retryAt: NOW + 30_000 });
  });

  it('treats no answer at all and a 503 alike: the service is unavailable', () => {
    expect(problemFromApiError(new ClaimApiError('network_error', 0, 'refused'), NOW)).toEqual({ code: 'unavailable' });
    expect(problemFromApiError(new ClaimApiError('service_unavailable', 503, 'db down'), NOW)).toEqual({ code: 'unavailable' });
  });

  it('keeps only the start of the request id of a server bug, as a support reference', () => {
    const problem = {
      type: '/docs#problem-internal_error',
      title: 'Internal error',
      status: 500,
      detail: 'x',
      code: 'internal_error' as const,
      requestId: '0123456789abcdef',
    };
    expect(problemFromApiError(new ClaimApiError('internal_error', 500, 'x', problem), NOW)).toEqual({ code: 'unexpected', reference: '01234567' });
  });

  it('calls an unknown thrown value unexpected, without its text', () => {
    expect(problemFromApiError(new Error('TypeError: x is undefined'), NOW)).toEqual({ code: 'unexpected' });
  });

  it('separates a rejected signature from an expired message', () => {
    expect(problemFromApiError(new ClaimApiError('signature_invalid', 401, 'x'), NOW)).toEqual({ code: 'rejected' });
    expect(problemFromApiError(new ClaimApiError('message_expired', 401, 'x'), NOW)).toEqual({ code: 'expired' });
    expect(problemFromApiError(new ClaimApiError('message_already_used', 409, 'x'), NOW)).toEqual({ code: 'used' });
  });
});

describe('canSignAgain: a message offered for signature a second time', () => {
  it('is reused while it has more than a minute left', () => {
    expect(canSignAgain(issued(5 * 60_000), account.publicKey, NOW)).toBe(true);
  });

  it('is not reused near its expiry, for another address, or when there is none', () => {
    expect(canSignAgain(issued(30_000), account.publicKey, NOW)).toBe(false);
    expect(canSignAgain(issued(5 * 60_000, 'B'.repeat(44)), account.publicKey, NOW)).toBe(false);
    expect(canSignAgain(null, account.publicKey, NOW)).toBe(false);
  });
});

describe('the steps and the wait', () => {
  it('puts each state in its step', () => {
    expect(stepOf({ kind: 'idle' })).toBe(1);
    expect(stepOf({ kind: 'disconnected', wallet: account.wallet })).toBe(1);
    expect(stepOf({ kind: 'working', account, step: 'signing', renewed: false })).toBe(2);
    expect(stepOf({ kind: 'problem', account, problem: { code: 'declined' } })).toBe(2);
    expect(stepOf({ kind: 'done', account, downloadUrl: 'u', created: true, googleSaveUrl: null })).toBe(3);
  });

  it('counts seconds up and formats them for a button and for a sentence', () => {
    expect(secondsUntil(NOW + 41_200, NOW)).toBe(42);
    expect(secondsUntil(NOW - 5_000, NOW)).toBe(0);
    expect(formatWait(42)).toBe('42 s');
    expect(formatWait(1, true)).toBe('1 second');
    expect(formatWait(95)).toBe('1:35');
    expect(formatWait(95, true)).toBe('1 min 35 s');
  });
});
