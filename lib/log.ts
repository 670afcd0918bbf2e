// Structured logs (pino, one JSON object per line). Secrets never appear in full: see redact().
import pino, { type Logger } from 'pino';
import { type ErrorLink, errorChain } from './errors';

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

/** Stack frames kept per logged error: enough to find the line, short enough for one log line. */
const STACK_FRAMES = 5;

/**
 * An unexpected error as logged: each link of its cause chain by type, code and message, and the
 * first frames of its stack. Never the error's other properties: a database error carries its
 * statement and parameters (device ids, token hashes), and a query wrapper puts both in its message.
 */
export function loggableError(error: unknown): { type?: string; code?: string; message: string; stack?: string; causes?: string[] } {
  if (typeof error !== 'object' || error === null) return { message: String(error).slice(0, 300) };
  const [first, ...rest] = [...errorChain(error)].filter(({ message }) => !message.startsWith('Failed query'));
  const text = (link: ErrorLink) =>
    [typeof link.name === 'string' ? link.name : undefined, typeof link.code === 'string' ? link.code : undefined, link.message].filter(Boolean).join(': ');
  const stack =
    error instanceof Error
      ? error.stack
          ?.split('\n')
          .map((line) => line.trim())
          // Only the frames: the stack's first lines repeat the message.
          .filter((line) => line.startsWith('at '))
          .slice(0, STACK_FRAMES)
          .join(' | ')
      : undefined;
  return {
    type: typeof first?.name === 'string' ? first.name : undefined,
    code: typeof first?.code === 'string' ? first.code : undefined,
    message: first?.message.slice(0, 300) ?? 'unknown error',
    stack,
    ...(rest.length > 0 ? { causes: rest.map(text) } : {}),
  };
}
