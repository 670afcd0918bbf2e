// One pass held in front of the camera is seen in frame after frame: it is sent once. A code is
// ignored while it has been seen within the last `windowMs` (each sighting renews the wait), so a
// pass kept in view is not sent again; taken away for that long and shown again, it is.
export type RepeatGuard = {
  /** Whether to send this code now (false: the same code was seen less than `windowMs` ago). */
  accept(code: string): boolean;
  /** Forget every code (e.g. the program changed: the same pass means something else now). */
  reset(): void;
};

export const REPEAT_WINDOW_MS = 2000;

export function createRepeatGuard(windowMs = REPEAT_WINDOW_MS, now: () => number = () => performance.now()): RepeatGuard {
  let last: { code: string; at: number } | null = null;
  return {
    accept(code) {
      const at = now();
      const repeated = last !== null && last.code === code && at - last.at < windowMs;
      last = { code, at };
      return !repeated;
    },
    reset() {
      last = null;
    },
  };
}
