// The DATA_DIR every end-to-end server starts from: made once per run by a server that starts on an
// empty directory (the embedded database created and migrated, the development keys and certificate
// chain made) and stops again. Each server then copies it, which costs a fraction of making one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort, ServerProcess } from '../../scripts/support/server-process';

/** The environment variable that names the template for the test workers (set by global-setup.ts). */
export const DATA_DIR_TEMPLATE = 'E2E_DATA_DIR_TEMPLATE';

export async function makeDataDirTemplate(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'wpc-e2e-template-'));
  const port = await freePort();
  try {
    const server = await ServerProcess.start(port, { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: dir, LOG_LEVEL: 'warn' }, { timeoutMs: 110_000 });
    await server.stop();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return dir;
}
