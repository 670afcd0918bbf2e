import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Three projects, each runnable alone (`npx vitest run --project unit`):
// - unit: modules on their own, no database and no server;
// - contract: the service in-process (test/support/app.ts) on copies of the template databases;
// - system: real server processes, the build, the CLI and the browser.
const DATABASE_TESTS = ['lib/queue/queue.test.ts'];

export default defineConfig({
  resolve: { alias: { '@': path.dirname(fileURLToPath(import.meta.url)) } },
  test: {
    environment: 'node',
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['lib/**/*.test.ts', 'components/**/*.test.ts', 'test/docs.test.ts', 'test/support/**/*.test.ts'],
          exclude: DATABASE_TESTS,
        },
      },
      {
        extends: true,
        test: {
          name: 'contract',
          include: ['test/contract/**/*.test.ts', 'test/living/web-service.test.ts', ...DATABASE_TESTS],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'system',
          include: ['test/**/*.test.ts'],
          exclude: ['test/contract/**', 'test/living/web-service.test.ts', 'test/docs.test.ts', 'test/support/**'],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
    ],
  },
});
