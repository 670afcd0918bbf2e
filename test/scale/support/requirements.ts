// What the scale tests need from the machine: the shared PostgreSQL and Redis of TEST_DATABASE_URL
// and TEST_REDIS_URL, PostgreSQL's binaries (initdb, pg_ctl), redis-server. A missing one fails the
// test file with a message naming it, in CI and elsewhere: these tests have no stand-in to fall
// back on, and a suite that passes without them would claim what it never checked.
export function requireService(what: string, problem: string | undefined, tests: string): void {
  if (problem) throw new Error(`${tests} need ${what}, which is not available: ${problem}.`);
}

export const sharedPostgresUrl = () => process.env.TEST_DATABASE_URL!;
export const sharedRedisUrl = () => process.env.TEST_REDIS_URL!;

export const missingEnv = (name: string, example: string) =>
  process.env[name] ? undefined : `${name} is not set (e.g. ${name}=${example}, as .ci/run sets it)`;
