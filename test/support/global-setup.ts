// Runs once before the suite: says loudly which databases the database tests will run on, and
// makes the migrated template databases that the tests copy (./templates.ts).
import { makeTemplates } from './templates';

export default async function setup(): Promise<() => Promise<void>> {
  if (!process.env.TEST_DATABASE_URL) warnPgliteOnly();
  return makeTemplates();
}

function warnPgliteOnly(): void {
  const message =
    'TEST_DATABASE_URL is not set: database tests run on embedded PGlite only, not on PostgreSQL. ' +
    'Set TEST_DATABASE_URL=postgres://127.0.0.1:5432/test (as .ci/run does) to run them on both.';
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`\n*** ${message} ***\n`);
}
