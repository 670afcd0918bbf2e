// A clock for tests: the system's time plus however far a test has moved it on, so that a test
// sees a message expire without waiting for it. Time still passes as usual in between.
import type { Clock } from '@/lib/clock';

export class TestClock implements Clock {
  private offsetMs = 0;

  now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }

  /** Back to the system's time, for a test that shares its service with the next. */
  reset(): void {
    this.offsetMs = 0;
  }
}
