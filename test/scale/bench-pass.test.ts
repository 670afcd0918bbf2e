// Keeps `npm run bench:pass` from rotting: the short mode runs and prints its figures. Timings
// are read by people, never asserted here (the machines are shared and noisy).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect, it } from 'vitest';

// It loads both cores but asserts no timing (its figures are read from full runs, never from
// this smallest one), so it runs beside another file rather than alone.

it('runs the pass benchmark in its short mode and prints figures for both builders', () => {
  const tsx = path.join(process.cwd(), 'node_modules', '.bin', 'tsx');
  const result = spawnSync(tsx, ['scripts/bench-pass.ts', '--passes', '200'], { encoding: 'utf8', timeout: 240_000 });
  console.log(result.stdout);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const number = String.raw`\d+(\.\d+)?`;
  const row = (label: string, busy: string) => new RegExp(`^${label} +${number} +${number} +${number} +${busy} +${number} +${number}x$`, 'm');
  expect(result.stdout).toMatch(row('passkit-generator \\d+\\.\\d+\\.\\d+', number));
  expect(result.stdout).toMatch(row('ours, 1 in flight', number));
  expect(result.stdout).toMatch(row('ours, 8 in flight', '-'));
  expect(result.stdout).toMatch(/200 passes per builder/);
}, 300_000);
