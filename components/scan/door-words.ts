// What the door page says about an answer, in plain words for whoever stands at the door: a
// heading the person at the door reads at a glance (green or red), and one line on why. Pure, so
// the words are tested without a browser (door-words.test.ts).
import { shortAddress } from '@/lib/address';
import { ClaimApiError } from '@/lib/client';
import type { CheckIn, CheckInReason } from '@/lib/client/check-in';

export type AnswerTone = 'admitted' | 'refused' | 'problem';

export type AnswerView = {
  tone: AnswerTone;
  /** Two or three words, read across the room. */
  title: string;
  /** Why, in one sentence. */
  detail: string;
  /** The holder's short address (first 4…last 4), when the pass is known. */
  holder: string | null;
  /** The whole address, for screen readers. */
  holderFull: string | null;
  /** When this pass was first checked in (formatted), when it was. */
  firstCheckIn: string | null;
  reason: CheckInReason | 'error';
};

const REASONS: Record<CheckInReason, { title: string; detail: string }> = {
  checked_in: { title: 'Welcome in', detail: 'The pass is valid: let them in.' },
  already_checked_in: { title: 'Already checked in', detail: 'This pass has already been used to get in.' },
  voided: { title: 'Pass voided', detail: 'This pass has been cancelled by the organisers.' },
  expired: { title: 'Pass expired', detail: 'This pass is past its expiry date.' },
  not_eligible: { title: 'No longer eligible', detail: 'The wallet no longer holds what this pass requires.' },
  wrong_program: { title: 'Wrong event', detail: 'This pass is for another program than this door’s.' },
  unknown_code: { title: 'Not a valid pass', detail: 'This code was not made by this service: it is made up, altered, or not a pass.' },
};

/** The time of a check-in as the door shows it: today's as a time, another day's with its date. */
export function formatCheckInTime(iso: string | null, now = new Date()): string | null {
  if (!iso) return null;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return null;
  const sameDay = date.toDateString() === now.toDateString();
  return sameDay
    ? date.toLocaleTimeString('en', { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
}

export function describeAnswer(answer: CheckIn, programName?: string, now = new Date()): AnswerView {
  const words = REASONS[answer.reason] ?? REASONS.unknown_code;
  const detail =
    answer.reason === 'wrong_program' && answer.program ? `This pass is for “${answer.program}”, not ${programName ?? 'this door'}.` : words.detail;
  return {
    tone: answer.admitted ? 'admitted' : 'refused',
    title: words.title,
    detail,
    holder: answer.publicKey ? shortAddress(answer.publicKey) : null,
    holderFull: answer.publicKey,
    firstCheckIn: answer.reason === 'checked_in' ? null : formatCheckInTime(answer.firstCheckInAt, now),
    reason: answer.reason,
  };
}

/** A check-in that got no answer: not a refusal, the pass was not checked. */
export function describeFailure(error: unknown): AnswerView {
  const problem = (detail: string): AnswerView => ({
    tone: 'problem',
    title: 'Not checked',
    detail,
    holder: null,
    holderFull: null,
    firstCheckIn: null,
    reason: 'error',
  });
  if (!(error instanceof ClaimApiError)) return problem('Something went wrong. Scan again.');
  if (error.status === 0) return problem('The service cannot be reached. Check the connection, then scan again.');
  if (error.status === 401) return problem('You are signed out. Sign in again to go on scanning.');
  if (error.status === 403) return problem('This sign-in may not check passes in.');
  if (error.status === 404 && error.code === 'program_not_found') return problem('This door’s program no longer exists. Choose the program again.');
  if (error.status === 429) return problem(`Too many scans at once. Wait ${error.retryAfterSeconds ?? 'a few'} seconds, then scan again.`);
  if (error.status === 400 || error.status === 413 || error.status === 422) return problem('That is not a code or serial number this service reads.');
  if (error.status === 503) return problem('The service is busy. Scan again in a moment.');
  return problem(`The service answered HTTP ${error.status}. Scan again.`);
}
