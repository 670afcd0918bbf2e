// No bearer secret at rest: after a pass has lived (claimed, downloaded, registered by a device,
// voided and restored, its file rebuilt each time), no file under DATA_DIR holds its PassKit
// authentication token or its download id, the database's files and WAL included. On PGlite only:
// a PostgreSQL server's data directory is the server's, not this service's to read.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
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
