// The authenticationToken of a pass: what Wallet sends back as `Authorization: ApplePass <token>`
// to the PassKit web service (lib/passes/web-service.ts).
//
// The token must be inside the signed pass.json, yet only its SHA-256 may be stored, and Apple
// says a pass's token must never change across updates ("Don't change the authentication token
// during an update"). So it is derived, not stored: base64url(HMAC-SHA256(key, 'passkit-auth:' +
// serial)), 43 characters (256 bits). Every rebuild of a pass carries the same token; the database
// holds only its hash, so a copy of the database lets nobody call the web service as a device.
// The key is PASSKIT_TOKEN_KEY, or one generated once into DATA_DIR (like the development
// certificates). Instances behind one load balancer must share it: set the variable there.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SerialNumber } from './ids';

const KEY_FILE = 'passkit-token.key';
/** The HMAC's label: this key derives nothing else, but a label keeps it that way if it ever does. */
const LABEL = 'passkit-auth:';

export type TokenKey = Buffer;

/** The configured key, or the one in DATA_DIR (made the first time, readable by the owner only). */
export function loadTokenKey(configured: Buffer | undefined, dataDir: string): TokenKey {
  if (configured) return configured;
  const file = path.join(dataDir, KEY_FILE);
  if (!existsSync(file)) {
    mkdirSync(dataDir, { recursive: true });
    // Written aside and renamed into place: two processes starting at once agree on one key.
    const staging = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(staging, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    if (!existsSync(file)) renameSync(staging, file);
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length < 32) throw new Error(`${file} holds fewer than 32 bytes of key; delete it to have a new one made`);
  return key;
}

/** The pass's authenticationToken: the same for every build of the pass. */
export function authenticationToken(key: TokenKey, serialNumber: SerialNumber): string {
  return createHmac('sha256', key)
    .update(LABEL + serialNumber)
    .digest('base64url');
}

/** SHA-256 (hex) of a token: what the database keeps. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Whether an `Authorization` header carries the token whose hash is `storedHash`. Hashing first
 * gives two equal-length digests, compared in constant time: the timing says nothing about how
 * much of a guess was right.
 */
export function authorizes(header: string | null, storedHash: string | null | undefined): boolean {
  const token = /^ApplePass (\S+)$/.exec(header?.trim() ?? '')?.[1];
  if (!token || !storedHash) return false;
  const presented = Buffer.from(tokenHash(token), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
