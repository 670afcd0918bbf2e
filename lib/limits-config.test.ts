// The configuration of the limits (docs/limits.md): defaults, bounds, the one off switch.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

const failureOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected a ConfigError');
};

describe('limits configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      pendingMessagesPerKey: 5,
      initBudgetPerSecond: 100,
      maxConnections: 1024,
      maxConnectionsPerIp: 256,
      downloadIdKey: undefined,
    });
  });

  it('turns the init budget off with RATE_LIMIT_PER_MINUTE=0, but not the per-key cap', () => {
    expect(loadConfig({ RATE_LIMIT_PER_MINUTE: '0', INIT_BUDGET_PER_SECOND: '7' })).toMatchObject({ initBudgetPerSecond: 0, pendingMessagesPerKey: 5 });
    expect(loadConfig({ INIT_BUDGET_PER_SECOND: '7' })).toMatchObject({ initBudgetPerSecond: 7 });
  });

  it.each([
    [{ PENDING_MESSAGES_PER_KEY: '0' }, 'PENDING_MESSAGES_PER_KEY: must be at least 1'],
    [{ PENDING_MESSAGES_PER_KEY: 'many' }, 'PENDING_MESSAGES_PER_KEY: must be a whole number'],
    [{ INIT_BUDGET_PER_SECOND: '-1' }, 'INIT_BUDGET_PER_SECOND: must be a whole number'],
    [{ MAX_CONNECTIONS: '0' }, 'MAX_CONNECTIONS: must be at least 1'],
    [{ MAX_CONNECTIONS_PER_IP: '1.5' }, 'MAX_CONNECTIONS_PER_IP: must be a whole number'],
  ])('refuses %j', (env, message) => {
    expect(failureOf(env)).toContain(message);
  });

  it('takes DOWNLOAD_ID_KEY as the bytes of its text, and refuses a short one without repeating it', () => {
    const key = 'q3Xo0k4mW7tYz1pL8sVb2nRc6dJf9hGa5eUi';
    expect(loadConfig({ DOWNLOAD_ID_KEY: key }).downloadIdKey).toEqual(Buffer.from(key));
    const message = failureOf({ DOWNLOAD_ID_KEY: 'short-secret-value' });
    expect(message).toMatch(/^DOWNLOAD_ID_KEY: must be at least 32 characters/);
    expect(message).not.toContain('short-secret-value');
  });
});
