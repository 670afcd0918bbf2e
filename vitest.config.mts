import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// Three projects, each runnable alone (`npx vitest run --project unit`):
// - unit: modules on their own, no database and no server;
// - contract: the service in-process (test/support/app.ts) on copies of the template databases;
// - system: real server processes, the build, the CLI and the browser.
const DATABASE_TESTS = ['lib/queue/queue.test.ts'];

/**
 * Vitest's order, but with the system files that run alone (test/server/support/alone.ts) after all
 * the others: the two workers first share the files that can run side by side, then take the lone
 * ones one after another, rather than a lone file holding up a worker that could run another file.
 */
class AloneLastSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const alone = new Set(sorted.filter((spec) => /^runsAlone\(\);$/m.test(readFileSync(spec.moduleId, 'utf8'))));
    return [...sorted.filter((spec) => !alone.has(spec)), ...alone];
  }
}

export default defineConfig({
  resolve: { alias: { '@': path.dirname(fileURLToPath(import.meta.url)) } },
  test: {
    environment: 'node',
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: one on these 2-core machines. The
    // contract files spend much of their time waiting on the database, so two at once pay.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The system files that run alone go last (test/server/support/alone.ts); no other file moves.
    sequence: { sequencer: AloneLastSequencer },
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
          // One module graph per worker, not per file: every file imports the whole service, which
          // cost 3-8 s a file on these machines. Each test opens its own TestApp, so no state is shared.
          isolate: false,
          include: ['test/contract/**/*.test.ts', 'test/living/web-service.test.ts', ...DATABASE_TESTS],
          globalSetup: ['test/support/global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'system',
          // Two files at once: most of a system test's time is waiting (servers starting, timers,
          // sockets), and every file's fixed ports differ from the others'. A file that times the
          // service, or loads both cores, runs alone (test/server/support/alone.ts). Vitest runs
          // projects with different maxWorkers one after another: this one after unit and contract.
          maxWorkers: 2,
          sequence: { groupOrder: 1 },
          include: ['test/**/*.test.ts'],
          exclude: ['test/contract/**', 'test/living/web-service.test.ts', 'test/docs.test.ts', 'test/support/**'],
          globalSetup: ['test/support/global-setup.ts', 'test/server/support/alone.ts'],
          setupFiles: ['test/server/support/alone-setup.ts'],
        },
      },
    ],
  },
});
