// Playwright's global setup: the DATA_DIR template (data-dir-template.ts), then the shared servers of
// servers.ts, started together. Returns the teardown that stops them and deletes their data.
import { rmSync } from 'node:fs';
import { testServiceAccount } from '../../test/support/google';
import { DATA_DIR_TEMPLATE, makeDataDirTemplate } from './data-dir-template';
import { TestServer } from './server';
import { SERVERS } from './servers';

export default async function globalSetup(): Promise<() => Promise<void>> {
  const template = await makeDataDirTemplate();
  process.env[DATA_DIR_TEMPLATE] = template; // the test workers inherit it
  const servers = Object.entries(SERVERS).map(
    ([name, spec]) =>
      // A key made up here stands in for a real Google service account: the link is signed with it.
      new TestServer({ port: spec.port, env: name === 'google' ? { ...spec.env, GOOGLE_SERVICE_ACCOUNT: testServiceAccount().json } : spec.env }),
  );
  const teardown = async () => {
    await Promise.all(servers.map((server) => server.dispose()));
    rmSync(template, { recursive: true, force: true });
  };
  // Settled, not raced: a server still starting when another fails is stopped too.
  const started = await Promise.allSettled(servers.map((server) => server.start(110_000)));
  const failure = started.find((result) => result.status === 'rejected');
  if (failure) {
    await teardown();
    throw failure.reason;
  }
  return teardown;
}
