// `npm run doctor`: checks a configuration before it goes live. It reads the environment the
// service reads, through the same loadConfig, and prints one line per check:
//   ✓ <what>
//   ✗ <what>: <problem>. Fix: <how>
// and exits 1 when a check fails, 0 otherwise. A warning (the development certificates) is a ✗
// line that fails only with --production. Nothing secret is printed: no key, no certificate, no
// password, no URL path or query (RPC and webhook URLs carry API keys), no allowlist.
//
// It is safe to run next to the running service: it never opens an embedded database that a live
// process holds (see database.ts), and writes nothing but what the service itself would write at
// start (the development certificates, when none exist yet).
//
// Each file beside this one checks one thing; this one runs them and prints the report.
import { parseArgs } from 'node:util';
import { processEnvironment } from '../../config';
import { appleChecks } from './apple';
import { type CheckLine, formatLine, isFailure, ok } from './check-line';
import { APPLE_VARIABLES, configurationProblem, type Env, loadConfigReportingEach } from './configuration';
import { checkDatabase } from './database';
import { checkGoogleKey } from './google';
import { checkRedis } from './redis';
import { checkApnsUrl, checkClaimPolicy, checkOperatorWallets, checkWebhook } from './settings';
import { checkSolana } from './solana';
import { checkSolanaWs } from './solana-ws';

export { type CheckLine, formatLine, isFailure } from './check-line';

export type DoctorOptions = {
  env: Env;
  /** Warnings (the development certificates) fail too. */
  production?: boolean;
  /** How long each network check waits for an answer. */
  timeoutMs?: number;
  /** "Now", for certificate dates. */
  now?: Date;
  /** The openssl command that verifies the sample pass; when it cannot be run, pkijs verifies instead. */
  openssl?: string;
};

export type DoctorReport = { lines: CheckLine[]; exitCode: 0 | 1 };

const DEFAULT_TIMEOUT_MS = 3000;

/** Runs every check; the lines come in a fixed order whatever finishes first. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const now = options.now ?? new Date();
  const { config, problems, dropped } = loadConfigReportingEach(options.env);
  const lines: CheckLine[] = problems.length === 0 ? [ok('configuration: every variable is valid')] : problems.map(configurationProblem);
  if (config) {
    // A check whose own variables were refused above is skipped: its problem is already named,
    // and running it on the defaults instead would check something else.
    const uses = (...variables: string[]) => !variables.some((variable) => dropped.has(variable));
    const groups: Promise<CheckLine[]>[] = [
      uses(...APPLE_VARIABLES) ? appleChecks(config, { production: options.production ?? false, now, openssl: options.openssl ?? 'openssl' }) : none(),
      // The embedded database's check may ask the running service at PORT / PUBLIC_BASE_URL.
      uses('DATABASE_URL', 'DATABASE_TIMEOUT_MS') && (config.databaseUrl || uses('PORT', 'PUBLIC_BASE_URL')) ? checkDatabase(config, timeoutMs) : none(),
      uses('REDIS_URL') ? single(checkRedis(config, timeoutMs)) : none(),
      uses('GOOGLE_WALLET_ISSUER_ID', 'GOOGLE_SERVICE_ACCOUNT') ? single(checkGoogleKey(config)) : none(),
      uses('OPERATOR_WALLETS') ? single(Promise.resolve(checkOperatorWallets(config))) : none(),
      uses('CLAIM_POLICY', 'SOLANA_RPC_URL') ? single(Promise.resolve(checkClaimPolicy(config))) : none(),
      uses('CLAIM_POLICY', 'SOLANA_RPC_URL') ? checkSolana(config, timeoutMs) : none(),
      uses('SOLANA_WS_URL', 'SOLANA_RPC_URL') ? checkSolanaWs(config, timeoutMs) : none(),
      uses('WEBHOOK_URL', 'WEBHOOK_SECRET') ? single(Promise.resolve(checkWebhook(config))) : none(),
      uses('APNS_URL') ? single(Promise.resolve(checkApnsUrl(config))) : none(),
    ];
    for (const group of await Promise.all(groups)) lines.push(...group);
  }
  const failed = lines.some((line) => isFailure(line, options.production));
  return { lines, exitCode: failed ? 1 : 0 };
}

const none = async (): Promise<CheckLine[]> => [];
const single = async (line: Promise<CheckLine>): Promise<CheckLine[]> => [await line];

export function helpText(): string {
  return [
    'Usage: npm run doctor [-- --production]',
    '',
    'Checks the configuration in the environment (the same variables the service reads) before it',
    'goes live: Apple signing material and a sample pass, the database, Redis, the Google key,',
    'OPERATOR_WALLETS, CLAIM_POLICY and its RPC (and PubSub), webhooks and APNS_URL. One line per check.',
    '',
    '  --production  the development certificates fail the check instead of warning',
    '',
    'Exit status: 0 when every check passes (warnings allowed), 1 when one fails, 2 on bad arguments.',
  ].join('\n');
}

type Output = { stdout: (line: string) => void; stderr: (line: string) => void };

/** The command: parses arguments, runs the checks, prints them; resolves to the exit code. */
export async function runDoctorCommand(argv: string[], output: Output, env: Env = processEnvironment()): Promise<number> {
  let production = false;
  try {
    const { values } = parseArgs({ args: argv, options: { production: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: true });
    if (values.help) {
      output.stdout(helpText());
      return 0;
    }
    production = values.production ?? false;
  } catch (error) {
    output.stderr(`doctor: ${(error as Error).message}`);
    return 2;
  }
  const report = await runDoctor({ env, production });
  for (const line of report.lines) output.stdout(formatLine(line));
  output.stdout(summary(report.lines, production));
  return report.exitCode;
}

function summary(lines: CheckLine[], production: boolean): string {
  const failed = lines.filter((line) => isFailure(line, production)).length;
  const warnings = lines.filter((line) => !line.ok && !isFailure(line, production)).length;
  const parts = [`${lines.length - failed - warnings} passed`, `${failed} failed`];
  if (warnings) parts.push(`${warnings} ${warnings === 1 ? 'warning' : 'warnings'} (pass --production to fail on them)`);
  return `doctor: ${parts.join(', ')}.`;
}
