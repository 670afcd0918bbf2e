// No bearer secret at rest: after a pass has lived (claimed, downloaded, registered by a device,
// voided and restored, its file rebuilt each time), no file under DATA_DIR holds its PassKit
// authentication token or its download id, the database's files and WAL included. On PGlite only:
// a PostgreSQL server's data directory is the server's, not this service's to read.
import { randomBytes, randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { expect, it } from 'vitest';
import { openDatabase } from '@/lib/db/client';
import { restorePass, voidPass } from '@/lib/passes/lifecycle';
import { TestApp } from '../support/app';
import { device, type InstalledPass, installPass, newPushToken, PASSKIT } from './support';

/** Every regular file under `dir`, at any depth. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name));
}

it("keeps neither a pass's authentication token nor its download id in any file of DATA_DIR (PGlite, WAL included)", async () => {
  const app = await TestApp.open('pglite', { APNS_URL: 'https://127.0.0.1:9' });
  const dataDir = app.env.DATA_DIR!;
  let installed: InstalledPass;
  try {
    installed = await installPass(app);
    const { passTypeIdentifier, serialNumber, authenticationToken } = installed;
    const latest = () =>
      app.fetch(`${PASSKIT}/passes/${passTypeIdentifier}/${serialNumber}`, { headers: { authorization: `ApplePass ${authenticationToken}` } });
    expect((await device(app, installed).register(newPushToken())).status).toBe(201);
    for (const change of [() => voidPass(app.services, serialNumber, 'lost'), () => restorePass(app.services, serialNumber)]) {
      expect((await change()).changed).toBe(true);
      expect((await latest()).status).toBe(200);
      expect((await app.fetch(installed.downloadPath)).status).toBe(200);
    }
  } finally {
    // Closed, not dropped: PGlite writes out what it holds, and its files stay to be read.
    await app.services.close();
  }
  try {
    const files = filesUnder(dataDir);
    expect(files.some((file) => file.includes('pg_wal'))).toBe(true);
    const holding = (text: string) => files.filter((file) => readFileSync(file).includes(Buffer.from(text))).map((file) => path.relative(dataDir, file));
    // The search finds what is stored in clear: the public serial number.
    expect(holding(installed.serialNumber)).not.toEqual([]);
    expect(holding(installed.authenticationToken)).toEqual([]);
    expect(holding(new URL(installed.downloadPath, 'http://localhost').searchParams.get('pass')!)).toEqual([]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it("leaves no byte of a file stored before the upgrade in the database's table files (PGlite)", async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wpc-at-rest-'));
  const before = mkdtempSync(path.join(tmpdir(), 'wpc-migrations-'));
  try {
    // The database as the version before: migrated up to the one that drops the file's column.
    cpSync('drizzle', before, { recursive: true });
    const journalFile = path.join(before, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: { tag: string }[] };
    const dropping = journal.entries.findIndex((entry) => entry.tag === '0004_pass_file_not_stored');
    writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, dropping) }));
    const secret = randomBytes(32).toString('base64url');
    // A stored file: incompressible bytes around the secret, as the PNGs around pass.json's token.
    const file = Buffer.concat([randomBytes(12_000), Buffer.from(`"authenticationToken":"${secret}"`), randomBytes(12_000)]);
    const old = await PGlite.create(path.join(dataDir, 'pglite'));
    await migrate(drizzle(old), { migrationsFolder: before });
    await old.query(
      `insert into passes (serial_number, download_id_hash, public_key, wallet_type, claimed_at, pkpass) values ($1, $2, $3, 'Phantom', now(), $4)`,
      [randomUUID(), randomBytes(32).toString('hex'), randomBytes(32).toString('hex'), file],
    );
    await old.close();
    // The table's files; the WAL written before the upgrade is PostgreSQL's to recycle (docs/living-passes.md).
    const holding = () =>
      filesUnder(dataDir)
        .filter((name) => !name.includes(`${path.sep}pg_wal${path.sep}`))
        .filter((name) => readFileSync(name).includes(Buffer.from(secret)));
    expect(holding()).not.toEqual([]);

    const upgraded = await openDatabase({ dataDir, poolSize: 1, timeoutMs: 5000 });
    await upgraded.close();
    expect(holding().map((name) => path.relative(dataDir, name))).toEqual([]);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(before, { recursive: true, force: true });
  }
});
