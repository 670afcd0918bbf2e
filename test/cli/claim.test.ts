// The command-line claim, run as a user runs it (a child process: tsx scripts/claim.ts) against
// the real service (tsx server.ts on the production build). Every failure must be exactly one
// line on stderr, nothing on stdout, and its documented exit code.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_EXIT_CODES, PROBLEM_EXIT_CODES } from '@/lib/cli/claim';
import { PROBLEMS } from '@/lib/errors';
import { WALLET_TYPES } from '@/lib/wallet-types';
import { inspectPkpass } from '../support/pkpass';
import { freePort, ROOT, type RunningServer, startServer } from '../support/server';
import { TestWallet } from '../support/wallet';

type Run = { exitCode: number | null; stdout: string; stderr: string };

/** tsx's loader by absolute URL: the scripts run in other directories, where a bare "tsx" would not resolve. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Runs a script of scripts/ in `cwd`, as `npm run <name> -- …args` would. */
function runScript(script: 'claim' | 'keygen', args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX, path.join(ROOT, 'scripts', `${script}.ts`), ...args], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: cwd, NODE_ENV: 'production', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ exitCode, stdout, stderr }));
  });
}

/** A failed run: no output, one line on stderr, the exit code. */
function expectFailure(run: Run, exitCode: number, ...fragments: string[]): void {
  expect(run.stdout, 'nothing on stdout').toBe('');
  const lines = run.stderr.trimEnd().split('\n');
  expect(lines, 'exactly one line on stderr').toHaveLength(1);
  expect(lines[0]).toMatch(/^claim: /);
  for (const fragment of fragments) expect(lines[0]).toContain(fragment);
  expect(run.exitCode).toBe(exitCode);
}

describe('npm run claim, against the running service', () => {
  let service: RunningServer;
  let limited: RunningServer;
  let dir: string;
  let keypair: string;
  let address: string;
  /** An operator of `service`, who makes the programs the command claims from. */
  const operator = new TestWallet();

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'wpc-cli-'));
    [service, limited] = await Promise.all([
      startServer({ LOG_LEVEL: 'warn', OPERATOR_WALLETS: operator.publicKey }),
      startServer({ LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '1' }),
    ]);
    const made = await runScript('keygen', ['--out', 'id.json'], dir);
    expect(made.exitCode).toBe(0);
    address = made.stdout.trim();
    keypair = path.join(dir, 'id.json');
  });
  afterAll(async () => {
    await Promise.all([service?.dispose(), limited?.dispose()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('keygen writes a Solana CLI keypair file (64 numbers, private to its owner) and never overwrites one', async () => {
    const bytes = JSON.parse(readFileSync(keypair, 'utf8'));
    expect(bytes).toHaveLength(64);
    expect(bytes.every((b: number) => Number.isInteger(b) && b >= 0 && b <= 255)).toBe(true);
    expect(address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect((await import('node:fs')).statSync(keypair).mode & 0o777).toBe(0o600);
    const again = await runScript('keygen', ['--out', 'id.json'], dir);
    expect(again.exitCode).not.toBe(0);
    expect(again.stderr).toContain('already exists');
    expect(JSON.parse(readFileSync(keypair, 'utf8'))).toEqual(bytes);
  });

  it('claims: prints the downloadUrl, saves a pass that verifies, and gives the same URL again', async () => {
    const run = await runScript('claim', ['--keypair', keypair, '--url', service.baseUrl, '--wallet-type', 'Coinbase Wallet', '--out', 'pass.pkpass'], dir);
    expect(run.stderr).toContain(`Claimed a new pass for ${address}.`);
    expect(run.exitCode).toBe(0);
    const url = run.stdout.trim();
    expect(run.stdout).toBe(`${url}\n`);
    expect(url).toMatch(new RegExp(`^${service.baseUrl}/download\\?pass=[\\w-]{43}$`));
    const pass = inspectPkpass(readFileSync(path.join(dir, 'pass.pkpass')));
    expect(pass.opensslVerify().ok).toBe(true);
    expect(JSON.stringify(pass.passJson)).toContain(address);

    const again = await runScript('claim', ['-k', keypair, '-u', service.baseUrl], dir);
    expect(again.exitCode).toBe(0);
    expect(again.stdout.trim()).toBe(url);
    expect(again.stderr).toContain('already had a pass');
    // Without --out, the file takes the name the service gives it.
    expect(again.stderr).toMatch(/Saved the pass to .+\.pkpass \(\d+ bytes\)/);
  });

  it('reads the default keypair, ~/.config/solana/id.json, when --keypair is not given', async () => {
    const home = path.join(dir, 'home');
    mkdirSync(path.join(home, '.config', 'solana'), { recursive: true });
    writeFileSync(path.join(home, '.config', 'solana', 'id.json'), readFileSync(keypair));
    const run = await runScript('claim', ['--url', service.baseUrl, '--out', path.join(dir, 'default.pkpass')], dir, { HOME: home });
    expect(run.exitCode).toBe(0);
    const missing = await runScript('claim', ['--url', service.baseUrl], dir, { HOME: path.join(dir, 'nobody') });
    expectFailure(missing, LOCAL_EXIT_CODES.keypair_unreadable.exitCode, '.config/solana/id.json', 'no such file', '--keypair', 'npm run keygen');
  });

  it('--help documents every option, the 13 wallet types and every exit code', async () => {
    const run = await runScript('claim', ['--help'], dir);
    expect(run.exitCode).toBe(0);
    for (const option of ['--keypair', '--url', '--program', '--wallet-type', '--out', '--help', 'http://localhost:3000', '~/.config/solana/id.json']) {
      expect(run.stdout).toContain(option);
    }
    for (const walletType of WALLET_TYPES) expect(run.stdout).toContain(walletType);
    for (const { exitCode, meaning } of Object.values(LOCAL_EXIT_CODES)) expect(run.stdout).toMatch(new RegExp(`^ +${exitCode}  ${meaning.slice(0, 20)}`, 'm'));
    for (const [code, exitCode] of Object.entries(PROBLEM_EXIT_CODES)) {
      expect(run.stdout).toMatch(new RegExp(`^ +${exitCode}  ${code} \\(${PROBLEMS[code as keyof typeof PROBLEMS].status}\\)`, 'm'));
    }
  });

  it('docs/api.md lists the same exit codes', () => {
    const readme = readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');
    for (const { exitCode, meaning } of Object.values(LOCAL_EXIT_CODES)) expect(readme).toContain(`| ${exitCode} | ${meaning} |`);
    for (const [code, exitCode] of Object.entries(PROBLEM_EXIT_CODES)) {
      expect(readme).toContain(`| ${exitCode} | \`${code}\` (${PROBLEMS[code as keyof typeof PROBLEMS].status})`);
    }
  });

  describe('keypair files it cannot use', () => {
    const write = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const tampered = () => {
      const bytes = JSON.parse(readFileSync(keypair, 'utf8')) as number[];
      bytes[40] = (bytes[40]! + 1) % 256;
      return JSON.stringify(bytes);
    };

    // Each run is a process of its own on a file of its own: they run side by side.
    it.concurrent.each([
      ['a missing file', () => path.join(dir, 'nope.json'), LOCAL_EXIT_CODES.keypair_unreadable.exitCode, 'no such file'],
      ['a directory', () => dir, LOCAL_EXIT_CODES.keypair_unreadable.exitCode, 'it is a directory'],
      ['text that is not JSON', () => write('text.json', 'hello'), LOCAL_EXIT_CODES.keypair_invalid.exitCode, 'not JSON'],
      ['a JSON object', () => write('object.json', '{"secretKey":[1,2,3]}'), LOCAL_EXIT_CODES.keypair_invalid.exitCode, 'not a JSON array'],
      ['63 numbers', () => write('short.json', JSON.stringify(Array(63).fill(1))), LOCAL_EXIT_CODES.keypair_invalid.exitCode, 'holds 63 numbers'],
      ['65 numbers', () => write('long.json', JSON.stringify(Array(65).fill(1))), LOCAL_EXIT_CODES.keypair_invalid.exitCode, 'holds 65 numbers'],
      ['a number over 255', () => write('big.json', JSON.stringify([...Array(63).fill(1), 256])), LOCAL_EXIT_CODES.keypair_invalid.exitCode, 'item 63 is 256'],
      ['a public half that is not its secret half’s', () => write('tampered.json', tampered()), LOCAL_EXIT_CODES.keypair_invalid.exitCode, 'public half'],
    ])('%s: one line and its exit code', async (_, file, exitCode, fragment) => {
      const target = file();
      expectFailure(await runScript('claim', ['--keypair', target, '--url', service.baseUrl], dir), exitCode, target, fragment);
    });
  });

  it('an unreachable service: one line and exit 5', async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    expectFailure(
      await runScript('claim', ['-k', keypair, '-u', url], dir),
      LOCAL_EXIT_CODES.network_error.exitCode,
      'network_error',
      url,
      'connection refused',
    );
  });

  it('bad arguments: one line and exit 2', async () => {
    expectFailure(await runScript('claim', ['-k', keypair, '--colour'], dir), LOCAL_EXIT_CODES.usage.exitCode, "'--colour'", '--help');
    expectFailure(await runScript('claim', ['-k', keypair, '--url', 'localhost:3000'], dir), LOCAL_EXIT_CODES.usage.exitCode, '--url');
    expectFailure(await runScript('claim', ['-k', keypair, 'extra'], dir), LOCAL_EXIT_CODES.usage.exitCode, 'extra');
  });

  it('a walletType the service does not know: invalid_request, listing the 13', async () => {
    const run = await runScript('claim', ['-k', keypair, '-u', service.baseUrl, '-w', 'Backpack'], dir);
    expectFailure(run, PROBLEM_EXIT_CODES.invalid_request, 'claim: invalid_request (400): walletType must be one of: Generic, Phantom');
  });

  it('a pass it cannot save: the URL is printed, then one line and exit 6', async () => {
    const target = path.join(dir, 'no-such-dir', 'pass.pkpass');
    const run = await runScript('claim', ['-k', keypair, '-u', service.baseUrl, '-o', target], dir);
    expect(run.stdout).toMatch(/\/download\?pass=/);
    expect(run.stderr.trimEnd().split('\n').at(-1)).toBe(`claim: cannot save the pass to ${target}: no such directory`);
    expect(run.exitCode).toBe(LOCAL_EXIT_CODES.save_failed.exitCode);
  });

  describe('--program', () => {
    /** Creates a program on `service` through the operator API, signed in as `operator`. */
    async function createProgram(program: Record<string, unknown>): Promise<void> {
      const init = await fetch(`${service.baseUrl}/api/v1/operator/sessions/init?publicKey=${operator.publicKey}`);
      const { message } = (await init.json()) as { message: string };
      const session = await fetch(`${service.baseUrl}/api/v1/operator/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message, signature: operator.sign(message), publicKey: operator.publicKey }),
      });
      const { token } = (await session.json()) as { token: string };
      const created = await fetch(`${service.baseUrl}/api/v1/operator/programs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(program),
      });
      expect(created.status, await created.text()).toBe(201);
    }

    it('claims from the program named: a pass of that program, the same URL again; sold out, closed and unknown programs each exit with their code', async () => {
      await createProgram({
        slug: 'cli-summit',
        name: 'CLI Summit',
        status: 'live',
        supply: 2,
        design: {
          style: 'eventTicket',
          organizationName: 'CLI Summit',
          description: 'CLI Summit ticket',
          logoText: 'CLI Summit',
          backgroundColor: '#101820',
          foregroundColor: '#ffffff',
          labelColor: '#14f195',
          fields: { primary: [{ key: 'holder', label: 'Holder', value: '{shortAddress}' }] },
          barcode: 'qr',
        },
      });
      await createProgram({ slug: 'cli-closed', name: 'CLI closed', status: 'closed' });

      const run = await runScript('claim', ['-k', keypair, '-u', service.baseUrl, '--program', 'cli-summit', '-o', 'summit.pkpass'], dir);
      expect(run.stderr).toContain(`Claimed a new pass of cli-summit for ${address}.`);
      expect(run.exitCode).toBe(0);
      const url = run.stdout.trim();
      expect(url).toMatch(new RegExp(`^${service.baseUrl}/download\\?pass=[\\w-]{43}$`));
      const pass = inspectPkpass(readFileSync(path.join(dir, 'summit.pkpass')));
      expect(pass.opensslVerify().ok).toBe(true);
      // The scanner check says which program the saved pass is of.
      const serial = (pass.passJson as { serialNumber: string }).serialNumber;
      const check = await fetch(`${service.baseUrl}/api/v1/passes/verify?serial=${encodeURIComponent(serial)}`);
      expect(await check.json()).toMatchObject({ program: 'cli-summit', publicKey: address });

      const again = await runScript('claim', ['-k', keypair, '-u', service.baseUrl, '-p', 'cli-summit', '-o', 'summit.pkpass'], dir);
      expect(again.exitCode).toBe(0);
      expect(again.stdout.trim()).toBe(url);
      expect(again.stderr).toContain(`${address} already had a pass of cli-summit`);

      // Its second pass goes to another keypair; a third is refused.
      for (const name of ['second.json', 'third.json']) expect((await runScript('keygen', ['--out', name], dir)).exitCode).toBe(0);
      expect((await runScript('claim', ['-k', path.join(dir, 'second.json'), '-u', service.baseUrl, '-p', 'cli-summit'], dir)).exitCode).toBe(0);
      const soldOut = await runScript('claim', ['-k', path.join(dir, 'third.json'), '-u', service.baseUrl, '-p', 'cli-summit'], dir);
      expectFailure(soldOut, PROBLEM_EXIT_CODES.sold_out, 'claim: sold_out (403): ', 'CLI Summit');
      expectFailure(
        await runScript('claim', ['-k', keypair, '-u', service.baseUrl, '-p', 'cli-closed'], dir),
        PROBLEM_EXIT_CODES.program_closed,
        'claim: program_closed (403): ',
      );
      expectFailure(
        await runScript('claim', ['-k', keypair, '-u', service.baseUrl, '-p', 'no-such-program'], dir),
        PROBLEM_EXIT_CODES.program_not_found,
        'claim: program_not_found (404): ',
      );
    });
  });

  it('over the rate limit: rate_limited, with the seconds to wait, and exit 18', async () => {
    // RATE_LIMIT_PER_MINUTE=1: init takes the minute's one request, so the claim is refused.
    const run = await runScript('claim', ['-k', keypair, '-u', limited.baseUrl], dir);
    expectFailure(run, PROBLEM_EXIT_CODES.rate_limited, 'claim: rate_limited (429): ', 'Retry in');
  });
});
