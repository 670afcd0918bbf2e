// Per-client-IP limits on the claim path (init + claim share one budget), with
// rate-limiter-flexible: in process by default, in Redis when REDIS_URL is set so that every
// instance counts against the same budget.
//
// Redis down (refused, or hanging): claims keep working, and each instance limits by its own
// in-process counters until Redis answers again. Failing closed would turn a cache outage into a
// claim outage; failing open would drop the limits exactly when nobody watches them. The outage
// and the recovery are each logged once.
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export type RateLimiter = {
  consume(clientIp: string): Promise<RateLimitDecision>;
  close(): Promise<void>;
};

export type RateLimitOptions = { perMinute: number; redisUrl?: string; redisKeyPrefix: string };

/** A Redis command slower than this counts as Redis being down. */
const REDIS_COMMAND_TIMEOUT_MS = 500;
/**
 * After a failed Redis call, requests skip Redis for this long: against a hanging Redis only one
 * request per interval waits for the timeout, instead of every request.
 */
const REDIS_RETRY_INTERVAL_MS = 5000;

export function createRateLimiter(options: RateLimitOptions, log: Logger): RateLimiter {
  if (options.perMinute === 0) {
    return { consume: async () => ({ allowed: true }), close: async () => {} };
  }
  const limits = { points: options.perMinute, duration: 60, keyPrefix: `${options.redisKeyPrefix}:claim-path` };
  const local = new RateLimiterMemory(limits);
  if (!options.redisUrl) return { consume: (clientIp) => decide(local, clientIp), close: async () => {} };

  const redis = new Redis(options.redisUrl, {
    // Fail commands at once while disconnected instead of queueing them behind a dead server.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  const outage = new OutageState(log);
  // ioredis reports every failed reconnection attempt; the outage state logs only the first.
  redis.on('error', (error: Error) => outage.began(error));
  redis.on('ready', () => outage.ended());
  const shared = new RateLimiterRedis({ ...limits, storeClient: redis, rejectIfRedisNotReady: true });

  return {
    async consume(clientIp) {
      if (!outage.skipRedis()) {
        try {
          const decision = await decide(shared, clientIp);
          outage.ended();
          return decision;
        } catch (error) {
          outage.began(error as Error);
        }
      }
      return decide(local, clientIp);
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Whether Redis is considered down, logged once per transition. */
class OutageState {
  private down = false;
  private retryAt = 0;

  constructor(private readonly log: Logger) {}

  skipRedis(): boolean {
    return this.down && Date.now() < this.retryAt;
  }

  began(error: Error): void {
    this.retryAt = Date.now() + REDIS_RETRY_INTERVAL_MS;
    if (this.down) return;
    this.down = true;
    this.log.warn({ event: 'redis_unavailable', err: error.message }, 'Redis unavailable: rate limits fall back to this instance only');
  }

  ended(): void {
    if (!this.down) return;
    this.down = false;
    this.log.info({ event: 'redis_recovered' }, 'Redis is back: rate limits are shared again');
  }
}

/** A limiter's answer for one request; errors other than "over the limit" propagate. */
async function decide(limiter: RateLimiterAbstract, clientIp: string): Promise<RateLimitDecision> {
  try {
    await limiter.consume(clientIp);
    return { allowed: true };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
    }
    throw rejection;
  }
}

export type InitBudget = { consume(): Promise<RateLimitDecision> };

/**
 * The per-instance budget of inits from all clients together: whatever the number of addresses
 * an attacker spreads an init flood over, this instance stores at most this many messages a
 * second. In process on purpose: it bounds this instance's (and its database's) write rate, so
 * N instances allow N budgets. 0: no budget.
 */
export function createInitBudget(perSecond: number): InitBudget {
  if (perSecond === 0) return { consume: async () => ({ allowed: true }) };
  const limiter = new RateLimiterMemory({ points: perSecond, duration: 1, keyPrefix: 'init-budget' });
  return { consume: () => decide(limiter, 'all') };
}
