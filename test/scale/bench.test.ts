// `npm run bench` in its short mode, at its smallest (1 s phases, a few hundred claims), so that it
// cannot rot: it must run to the end and print its table. No timing is asserted here; the figures
// are read by people (README, reports) from full runs.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// It loads both cores but asserts no timing (its figures are read from full runs, never from
// this smallest one), so it runs beside another file rather than alone.

const PORT = 3670; // and 3671 for the route-handler run

describe('npm run bench -- --short', () => {
  it('runs every phase and prints the table', { timeout: 300_000 }, async () => {
    const env = { ...process.env };
    delete env.DATABASE_URL; // the embedded run only: the PostgreSQL run is the full bench's
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench.ts', '--short', '--seconds', '1', '--claims', '300', '--port', String(PORT)], {
      cwd: process.cwd(),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code, stderr.slice(-4000)).toBe(0);

    expect(stdout).toContain('| run | endpoint | req/s | p50 ms | p99 ms | max ms | errors | × /health | server CPU ms/req |');
    for (const endpoint of ['/health', 'init', 'claim', 'download', 'first download (builds the pass)']) {
      expect(stdout).toMatch(new RegExp(`^\\| embedded \\(PGlite\\) \\| ${endpoint.replace(/[()/]/g, '\\$&')} \\| \\d+ \\| \\d+ \\| \\d+ \\| \\d+ \\|`, 'm'));
    }
    for (const endpoint of ['/health', 'init', 'claim']) {
      expect(stdout).toMatch(new RegExp(`^\\| embedded \\(PGlite\\), next start route handlers \\| ${endpoint.replace(/\//g, '\\/')} \\| \\d+ \\|`, 'm'));
    }
    for (const goal of ['claim p99', 'claims/s', 'init/s', 'health/s', 'RSS'])
      expect(stdout).toMatch(new RegExp(`^(met {4}|NOT MET)  embedded \\(PGlite\\): ${goal}`, 'm'));
    expect(stdout).toMatch(/embedded \(PGlite\): RSS \d+ MiB after warm-up, \d+ MiB after \d+ claims/);
  });
});
