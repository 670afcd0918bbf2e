// What the scale tests need from the machine (the shared PostgreSQL and Redis of TEST_DATABASE_URL
// and TEST_REDIS_URL, PostgreSQL's binaries, redis-server). Missing under CI=true is a failure;
// elsewhere it is a loud warning naming the tests that did not run.
export function isAvailable(what: string, problem: string | undefined, tests: string): boolean {
  if (!problem) return true;
  const message = `${what} is not available (${problem}): ${tests} did not run.`;
  if (process.env.CI === 'true') throw new Error(message);
  console.warn(`\n*** ${message} ***\n`);
  return false;
}

export const sharedPostgresUrl = () => process.env.TEST_DATABASE_URL;
export const sharedRedisUrl = () => process.env.TEST_REDIS_URL;

export const missingEnv = (name: string, example: string) =>
  process.env[name] ? undefined : `${name} is not set; set it (e.g. ${name}=${example}) as .ci/run does`;
