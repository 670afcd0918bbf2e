// Per-client-IP limits on the claim path (init + claim share one budget), with
// rate-limiter-flexible: in process by default, in Redis when REDIS_URL is set so that every
// instance counts against the same budget.
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Logger } from 'pino';

export type RateLimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export type RateLimiter = {
  consume(clientIp: string): Promise<RateLimitDecision>;
  close(): Promise<void>;
};

export type RateLimitOptions = { perMinute: number; redisUrl?: string; redisKeyPrefix: string };

export function createRateLimiter(options: RateLimitOptions, log: Logger): RateLimiter {
  if (options.perMinute === 0) {
    return { consume: async () => ({ allowed: true }), close: async () => {} };
  }
  const limits = { points: options.perMinute, duration: 60, keyPrefix: `${options.redisKeyPrefix}:claim-path` };
  const memory = new RateLimiterMemory(limits);
  if (!options.redisUrl) return wrap(memory, async () => {});

  const redis = new Redis(options.redisUrl, {
    // Fail commands at once while disconnected instead of queueing them behind a dead server.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 500,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
  });
  // Redis down: claims keep working, limited per instance by the in-process insurance limiter
  // (rate-limiter-flexible's documented fallback). Logged once per outage, not per request.
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    log.warn({ event: 'redis_unavailable', err: error.message }, 'Redis unavailable: rate limits fall back to this instance only');
  });
  redis.on('ready', () => {
    if (!down) return;
    down = false;
    log.info({ event: 'redis_recovered' }, 'Redis is back: rate limits are shared again');
  });
  const shared = new RateLimiterRedis({
    ...limits,
    storeClient: redis,
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
  return wrap(shared, async () => {
    redis.disconnect();
  });
}

function wrap(limiter: RateLimiterAbstract, close: () => Promise<void>): RateLimiter {
  return {
    async consume(clientIp) {
      try {
        await limiter.consume(clientIp);
        return { allowed: true };
      } catch (rejection) {
        if (rejection instanceof RateLimiterRes) {
          return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
        }
        throw rejection;
      }
    },
    close,
  };
}
