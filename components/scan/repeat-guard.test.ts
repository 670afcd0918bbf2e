import { describe, expect, it } from 'vitest';
import { createRepeatGuard } from './repeat-guard';

describe('the repeat guard', () => {
  it('sends a code once while it stays in view, and again once it has been away for the window', () => {
    let now = 0;
    const guard = createRepeatGuard(2000, () => now);
    expect(guard.accept('A')).toBe(true);
    for (now = 100; now <= 6000; now += 150) expect(guard.accept('A'), `at ${now} ms`).toBe(false); // held in front of the camera
    now += 2000;
    expect(guard.accept('A')).toBe(true);
  });

  it('sends another code at once, and the same one after a reset', () => {
    let now = 0;
    const guard = createRepeatGuard(2000, () => now);
    expect(guard.accept('A')).toBe(true);
    now = 10;
    expect(guard.accept('B')).toBe(true);
    now = 20;
    expect(guard.accept('A')).toBe(true);
    guard.reset();
    expect(guard.accept('A')).toBe(true);
  });
});
