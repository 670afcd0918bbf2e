// `tsx e2e/support/serve.ts <name>`: runs one of the servers of servers.ts for Playwright's
// webServer, with a temporary DATA_DIR that is deleted when Playwright stops it (SIGTERM).
import { TestServer } from './server';
import { testServiceAccount } from '../../test/support/google';
import { SERVERS } from './servers';

const name = process.argv[2] as keyof typeof SERVERS;
const spec = SERVERS[name];
if (!spec) {
  console.error(`usage: tsx e2e/support/serve.ts <${Object.keys(SERVERS).join('|')}>`);
  process.exit(2);
}
// A key made up here stands in for a real Google service account: the link is signed with it.
const env = name === 'google' ? { ...spec.env, GOOGLE_SERVICE_ACCOUNT: testServiceAccount().json } : spec.env;
const server = new TestServer({ port: spec.port, env });

async function main() {
  const stop = async () => {
    await server.dispose();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  await server.start(110_000); // under Playwright's 120 s: four servers starting at once on a busy machine are slow
  console.log(`e2e server "${name}" ready at ${server.url}`);
}

main().catch(async (error: unknown) => {
  console.error(error);
  await server.dispose();
  process.exit(1);
});
