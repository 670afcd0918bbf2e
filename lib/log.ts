// Structured logs (pino, one JSON object per line). Secrets never appear in full: see redact().
import pino, { type Logger } from 'pino';

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'wallet-pass-claim' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}

/**
 * The first characters of a secret (nonce, signature, pass id): enough to correlate log lines,
 * far too little to use. Threat: logs are read by more people and systems than the database.
 */
export function redact(secret: string): string {
  return secret.length <= 6 ? '…' : `${secret.slice(0, 6)}…`;
}
