// The time, as the service reads it for what expires: sign-in messages and the pending slots
// they hold. Given to createServices, so that tests can move it on instead of waiting.
export type Clock = {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
};

export const systemClock: Clock = { now: () => Date.now() };
