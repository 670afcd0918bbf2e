// The kinds of value a setting takes (lib/config.ts): each a zod schema that turns the text of an
// environment variable into what the service uses, or says in one line what is wrong with it.
// A secret's line never repeats it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { BIDI_CONTROLS, NO_BIDI_CONTROLS } from './validate';
import { isSolanaAddress } from './wallet-address';

export const isLoopbackHost = (hostname: string) => hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]';

export const integer = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `must be a whole number between ${min} and ${max}`)
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

/** One line of text: the sign-in message is line-oriented, so a newline would forge a field. */
export const singleLine = (max: number) =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .refine((s) => !/[\r\n\u2028\u2029]/.test(s), 'must be a single line')
    .refine((s) => !BIDI_CONTROLS.test(s), NO_BIDI_CONTROLS);

/**
 * PEM text, or a path to a file holding it. A value that is neither is not echoed in the error:
 * it is most likely key material pasted without its armour, not a path.
 */
export const pemOrPath = z.string().transform((value, ctx) => {
  const text = value.includes('-----BEGIN') ? value : readTextFile(value);
  if (text === undefined || !text.includes('-----BEGIN')) {
    ctx.addIssue({ code: 'custom', message: 'is neither PEM text (-----BEGIN …) nor the path of a readable PEM file' });
    return '';
  }
  return text;
});

/** JSON text, or a path to a file holding it; never echoed, for the same reason. */
export const jsonOrPath = z.string().transform((value, ctx) => {
  const text = value.trim().startsWith('{') ? value : readTextFile(value);
  if (text === undefined) {
    ctx.addIssue({ code: 'custom', message: 'is neither JSON text (starting with {) nor the path of a readable JSON file' });
    return {};
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'is not valid JSON (nor a path to a JSON file)' });
    return {};
  }
});

/** The file's text, or undefined when there is no readable file at that path. */
function readTextFile(file: string): string | undefined {
  try {
    return readFileSync(path.resolve(file.trim()), 'utf8');
  } catch {
    return undefined;
  }
}

/** A URL of one of `protocols`, named `kind` in the message, which never repeats the value: URLs of RPC providers carry API keys. */
const urlOf = (protocols: string[], kind: string) => (example: string) =>
  z.string().transform((value, ctx) => {
    const url = URL.canParse(value.trim()) ? new URL(value.trim()) : undefined;
    if (!url || !protocols.includes(url.protocol)) {
      ctx.addIssue({ code: 'custom', message: `must be ${kind} such as ${example}` });
      return '';
    }
    return url.href;
  });

/** An http(s) URL. */
export const httpUrl = urlOf(['http:', 'https:'], 'an http:// or https:// URL');

/** A WebSocket URL (ws:// or wss://), as RPC providers publish their PubSub endpoints. */
export const wsUrl = urlOf(['ws:', 'wss:'], 'a ws:// or wss:// URL');

/**
 * OPERATOR_WALLETS: comma-separated addresses, duplicates dropped. A bad entry is named by its
 * position, never repeated (nor is the list): a secret key pasted by mistake must not reach a log.
 * Empty entries (a trailing comma) are skipped.
 */
export const walletList = z.string().transform((value, ctx) => {
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.findIndex((entry) => entry !== '' && !isSolanaAddress(entry));
  if (bad !== -1) {
    ctx.addIssue({ code: 'custom', message: `entry ${bad + 1} of ${entries.length} is not a wallet address (base58 text of 32 bytes)` });
    return [];
  }
  return [...new Set(entries.filter((entry) => entry !== ''))];
});

/** The Standard Webhooks secret form: `whsec_` and the base64 of 24-64 random bytes. */
export const webhookSecret = z.string().transform((value, ctx) => {
  const base64 = /^whsec_([A-Za-z0-9+/]+={0,2})$/.exec(value.trim())?.[1];
  const key = base64 === undefined ? undefined : Buffer.from(base64, 'base64');
  // Decoding is lenient (it skips bad characters); re-encoding tells whether it was exact.
  const exact = base64 !== undefined && key !== undefined && key.toString('base64').replace(/=+$/, '') === base64.replace(/=+$/, '');
  if (!key || !exact || key.length < 24 || key.length > 64) {
    ctx.addIssue({
      code: 'custom',
      message:
        key && exact
          ? `decodes to ${key.length} bytes; it must be 24 to 64 (Standard Webhooks: whsec_ followed by base64)`
          : 'must be whsec_ followed by base64 of 24 to 64 random bytes (the Standard Webhooks form)',
    });
    return { text: '', key: Buffer.alloc(0) };
  }
  return { text: value.trim(), key };
});

/** APNS_URL: an https origin (pushes go to <origin>/3/device/<token> over HTTP/2, which needs TLS). */
export const apnsOrigin = z.string().transform((value, ctx) => {
  const url = URL.canParse(value.trim()) ? new URL(value.trim()) : undefined;
  if (url?.protocol !== 'https:' || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username) {
    ctx.addIssue({ code: 'custom', message: 'must be an https:// origin (no path), such as https://api.push.apple.com' });
    return '';
  }
  return url.origin;
});

/**
 * DOWNLOAD_ID_KEY: the HMAC key download ids are derived under. Taken as text (its UTF-8 bytes are
 * the key), so any generator works; 32 characters at least, so it cannot be a short password.
 * Never echoed.
 */
export const downloadIdKey = z.string().transform((value, ctx) => {
  const key = Buffer.from(value.trim(), 'utf8');
  if (key.length < 32) {
    ctx.addIssue({
      code: 'custom',
      message: `must be at least 32 characters of random text (it has ${key.length}); generate one with: openssl rand -base64 32`,
    });
  }
  return key;
});

/** An http(s) origin without path; the message never repeats the value. */
export const origin = (example: string) =>
  z.string().transform((value, ctx) => {
    const url = URL.canParse(value.trim()) ? new URL(value.trim()) : undefined;
    if (
      !url ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      (url.pathname !== '/' && url.pathname !== '') ||
      url.search ||
      url.hash ||
      url.username
    ) {
      ctx.addIssue({ code: 'custom', message: `must be an http:// or https:// origin (no path), such as ${example}` });
      return '';
    }
    return url.origin;
  });

/**
 * PASSKIT_TOKEN_KEY: the key the passes' authenticationTokens are derived from, as base64 or
 * base64url of at least 32 bytes. Never echoed.
 */
export const secretKey = z.string().transform((value, ctx) => {
  const text = value.trim();
  const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64') : undefined;
  if (!key || key.length < 32) {
    ctx.addIssue({ code: 'custom', message: 'must be base64 of at least 32 random bytes (e.g. `openssl rand -base64 32`)' });
    return Buffer.alloc(0);
  }
  return key;
});

export const serviceAccount = z.object(
  {
    client_email: z.string().email(),
    private_key: z.string().includes('PRIVATE KEY'),
    token_uri: z.url({ protocol: /^https?$/ }).optional(),
  },
  { error: () => 'must be a service account key with client_email and private_key' },
);
