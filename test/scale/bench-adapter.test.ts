// Keeps `npm run bench:adapter` from rotting: one short round runs every adapter with no error
// and prints a row for each. Timings are read by people (docs/decisions.md), never asserted here.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

// It loads both cores but asserts no timing (its figures are read from full runs, never from
// this smallest one), so it runs beside another file rather than alone.

it('runs the adapter benchmark for one short round and prints every adapter with no errors', () => {
  const tsx = path.join(process.cwd(), 'node_modules', '.bin', 'tsx');
  const result = spawnSync(tsx, ['scripts/bench-adapter.ts', '--seconds', '1', '--rounds', '1'], { encoding: 'utf8', timeout: 120_000 });
  console.log(result.stdout);
  expect(result.stderr.split('\n').filter((line) => line && !line.startsWith('bench-adapter: round'))).toEqual([]);
  expect(result.status).toBe(0);
  for (const adapter of ['srvx', 'hono', 'hono-keep-globals']) {
    for (const method of ['GET', 'POST']) {
      // | adapter | request | req/s | p99 | CPU µs/req | errors: 0 |
      expect(result.stdout).toMatch(new RegExp(`^\\| ${adapter} \\| ${method} \\| [1-9]\\d* \\| \\d+ \\| \\d+ \\| 0 \\|$`, 'm'));
    }
  }
}, 150_000);
