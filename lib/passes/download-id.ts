// Download ids, derived rather than stored: id = base64url(HMAC-SHA256(key, serial)). The
// database keeps only a SHA-256 of the id (the /download lookup), so a copy of the database
// (a backup, a replica, a leaked dump) gives no working download link; a returning wallet gets
// the same link again because the id is derived again from its serial. The key comes from
// DOWNLOAD_ID_KEY, or is generated once into DATA_DIR/download-id.key (0600). Several instances
// must share one key (DOWNLOAD_ID_KEY): each would otherwise derive other links (docs/limits.md).
import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../db/data-dir';
import type { DownloadId, SerialNumber } from './ids';

export const DOWNLOAD_ID_KEY_FILE = 'download-id.key';

/** The configured key, or the one kept in DATA_DIR (made the first time). */
export function loadDownloadIdKey(configured: Buffer | undefined, dataDir: string): { key: Buffer; source: 'DOWNLOAD_ID_KEY' | 'file' } {
  if (configured) return { key: configured, source: 'DOWNLOAD_ID_KEY' };
  ensurePrivateDir(dataDir);
  const file = path.join(dataDir, DOWNLOAD_ID_KEY_FILE);
  // Written whole to a file of its own, then linked into place (link fails if the name exists):
  // of two processes starting at once on one DATA_DIR, one key wins and neither reads half of it.
  if (!existsSync(file)) createKeyFile(file);
  const text = readFileSync(file, 'utf8').trim();
  if (text.length < 32) throw new Error(`${file} holds no key (empty or truncated): delete it only if no pass was claimed yet`);
  return { key: Buffer.from(text, 'utf8'), source: 'file' };
}

function createKeyFile(file: string): void {
  const staging = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(staging, `${randomBytes(32).toString('base64url')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(staging, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(staging, { force: true });
  }
}

/** The download id of a pass: 43 URL-safe characters, 256 bits no one without the key can compute. */
export function downloadIdOf(key: Buffer, serialNumber: SerialNumber): DownloadId {
  return createHmac('sha256', key).update(serialNumber).digest('base64url') as DownloadId;
}
