import { describe, expect, it } from 'vitest';
import { CHECK_IN_REASONS } from '@/lib/check-in/check-in';
import { ClaimApiError } from '@/lib/client';
import type { CheckIn } from '@/lib/client/check-in';
import { describeAnswer, describeFailure, formatCheckInTime } from './door-words';

const ADDRESS = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const answer = (fields: Partial<CheckIn>): CheckIn => ({
  admitted: false,
  reason: 'unknown_code',
  program: null,
  serialNumber: null,
  publicKey: null,
  checkedInAt: null,
  firstCheckInAt: null,
  ...fields,
});

describe('the door’s words', () => {
  it('admits only checked_in, with the holder’s short address', () => {
    const view = describeAnswer(answer({ admitted: true, reason: 'checked_in', publicKey: ADDRESS, firstCheckInAt: '2026-11-26T10:00:00Z' }));
    expect(view).toMatchObject({ tone: 'admitted', title: 'Welcome in', holder: '7xKX…gAsU', holderFull: ADDRESS, firstCheckIn: null });
  });

  it('says every reason in words, red unless admitted', () => {
    for (const reason of CHECK_IN_REASONS) {
      const view = describeAnswer(answer({ reason, admitted: reason === 'checked_in' }));
      expect(view.title.length, reason).toBeGreaterThan(3);
      expect(view.detail, reason).not.toContain('_');
      expect(view.tone, reason).toBe(reason === 'checked_in' ? 'admitted' : 'refused');
    }
  });

  it('shows when a pass already used was first checked in, and which program a pass of another is for', () => {
    const now = new Date('2026-11-26T12:00:00Z');
    const again = describeAnswer(answer({ reason: 'already_checked_in', publicKey: ADDRESS, firstCheckInAt: '2026-11-25T09:30:00Z' }), 'Main hall', now);
    expect(again.firstCheckIn).toBe(formatCheckInTime('2026-11-25T09:30:00Z', now));
    expect(again.firstCheckIn).toMatch(/Nov 25, 2026/);
    const wrong = describeAnswer(answer({ reason: 'wrong_program', program: 'vip-lounge' }), 'Main hall');
    expect(wrong.detail).toBe('This pass is for “vip-lounge”, not Main hall.');
  });

  it('tells a failure from a refusal: the pass was not checked', () => {
    expect(describeFailure(new ClaimApiError('network_error', 0, 'x'))).toMatchObject({ tone: 'problem', title: 'Not checked', reason: 'error' });
    expect(describeFailure(new ClaimApiError('rate_limited', 429, 'x', undefined, 3)).detail).toContain('Wait 3 seconds');
    expect(describeFailure(new Error('boom')).detail).toBe('Something went wrong. Scan again.');
  });

  it('writes a time of today as a time, another day’s with its date', () => {
    const now = new Date('2026-11-26T12:00:00');
    expect(formatCheckInTime('2026-11-26T11:05:09', now)).toMatch(/11:05:09/);
    expect(formatCheckInTime(null, now)).toBeNull();
    expect(formatCheckInTime('not a date', now)).toBeNull();
  });
});
