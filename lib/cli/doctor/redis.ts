// The Redis check: REDIS_URL, when set, answers PING.
import { Redis } from 'ioredis';
import type { Config } from '../../config';
import { bad, type CheckLine, ok } from './check-line';
import { describeUrl, errorSummary, redact } from './describe';

/** Prevents: "rate limits are per instance after all" (REDIS_URL set but Redis unreachable). */
export async function checkRedis(config: Config, timeoutMs: number): Promise<CheckLine> {
  if (!config.redisUrl) return ok('Redis: not configured (rate limits are counted per instance)');
  const server = describeUrl(config.redisUrl);
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null, // one attempt: the doctor reports, it does not wait for recovery
  });
  // connect() rejects with "Connection is closed."; the socket's own error says why.
  let cause: unknown;
  redis.on('error', (error) => (cause ??= error));
  try {
    await redis.connect();
    const answer = await redis.ping();
    if (answer === 'PONG') return ok(`Redis answers PING (${server})`);
    return bad(`Redis (${server})`, `answered PING with something else than PONG`, 'check that REDIS_URL points at a Redis server');
  } catch (error) {
    const reason = redact(errorSummary(cause ?? error), config.redisUrl);
    return bad(`Redis (${server})`, `does not answer PING (${reason})`, 'start Redis, or correct REDIS_URL (host, port, password)');
  } finally {
    redis.disconnect();
  }
}
