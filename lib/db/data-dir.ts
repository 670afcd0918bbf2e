// DATA_DIR holds secrets at rest: the development signing key, the download id key, and the
// embedded database (nonce hashes, pass files, hashed tokens). It and everything in it are for the
// service's own user: directories 0700, files 0600.
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** Files and directories this process creates get no group or other permissions. */
export const PRIVATE_UMASK = 0o077;

/**
 * Makes `dir` (and any missing parent) private to this user, tightening an existing one that we
 * own, and sets the process umask so files written into it later (PGlite writes its own, with
 * default modes) are private too. The umask is process-wide on purpose: PGlite's files are opened
 * deep inside its file system layer, where no mode can be passed.
 */
export function ensurePrivateDir(dir: string): void {
  restrictUmask();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  if ((stat.mode & 0o077) !== 0 && stat.uid === process.getuid?.()) chmodSync(dir, 0o700);
}

/** The process umask, at least as strict as PRIVATE_UMASK. Worker threads cannot set it. */
export function restrictUmask(): void {
  try {
    process.umask(process.umask() | PRIVATE_UMASK);
  } catch {
    // a worker thread: the main thread's umask applies
  }
}

/**
 * Takes group and other permissions off everything under `dir`. PGlite sets the modes of the
 * files of a new database itself (0666, through chmod, which the umask does not limit); the
 * directories above are private anyway, and this makes the files say so too.
 */
export function restrictTree(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    const { mode } = lstatSync(full);
    if (!entry.isSymbolicLink() && (mode & 0o077) !== 0) chmodSync(full, mode & 0o700);
  }
}
