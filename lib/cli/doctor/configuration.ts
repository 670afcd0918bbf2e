// The configuration check: every variable loadConfig refuses, named in one run.
import { type Config, ConfigError, loadConfig } from '../../config';
import { bad, type FailedLine } from './check-line';

export type Env = Record<string, string | undefined>;

export const APPLE_VARIABLES = [
  'APPLE_PASS_TYPE_ID',
  'APPLE_TEAM_ID',
  'APPLE_SIGNER_CERT',
  'APPLE_SIGNER_KEY',
  'APPLE_SIGNER_KEY_PASSPHRASE',
  'APPLE_WWDR_CERT',
];

const APPLE_FIX = 'see README.md, "Apple Wallet signing material"';

/**
 * Variables that only make sense together. When one is refused, the whole group is set aside, so
 * that the next attempt does not fail on "X is required when Y is set" for the same mistake.
 */
const VARIABLE_GROUPS = [
  APPLE_VARIABLES,
  ['GOOGLE_WALLET_ISSUER_ID', 'GOOGLE_SERVICE_ACCOUNT'],
  ['WEBHOOK_URL', 'WEBHOOK_SECRET'],
  ['CLAIM_POLICY', 'SOLANA_RPC_URL'],
  ['PORT', 'PUBLIC_BASE_URL'],
  ['DATABASE_URL', 'DATABASE_POOL_SIZE', 'DATABASE_TIMEOUT_MS'],
  ['REDIS_URL', 'REDIS_KEY_PREFIX'],
];

/**
 * loadConfig stops at the first bad variable. To name every problem in one run, the refused
 * variable (and its group) is set aside and loadConfig runs again, until it loads or no progress
 * is possible. The checks then run on what loaded, skipping the variables set aside.
 */
export function loadConfigReportingEach(env: Env): { config?: Config; problems: ConfigError[]; dropped: Set<string> } {
  const remaining: Env = { ...env };
  const problems: ConfigError[] = [];
  const dropped = new Set<string>();
  for (;;) {
    try {
      return { config: loadConfig(remaining), problems, dropped };
    } catch (error) {
      const problem = error instanceof ConfigError ? error : new ConfigError('configuration', `cannot be loaded (${(error as Error).message})`);
      problems.push(problem);
      if (dropped.has(problem.variable) || problem.variable === 'configuration') return { problems, dropped };
      for (const variable of VARIABLE_GROUPS.find((group) => group.includes(problem.variable)) ?? [problem.variable]) {
        dropped.add(variable);
        delete remaining[variable];
      }
    }
  }
}

export const FIXES = {
  OPERATOR_WALLETS: 'list wallet addresses separated by commas (README.md, "Configuration")',
  CLAIM_POLICY: 'correct the policy at that place (README.md, "Who may claim" shows each rule)',
  SOLANA_RPC_URL: 'set SOLANA_RPC_URL to a Solana JSON-RPC endpoint such as https://api.mainnet-beta.solana.com',
  WEBHOOK_SECRET: 'make one with: echo "whsec_$(openssl rand -base64 32)"',
  APNS_URL: 'unset it (https://api.push.apple.com) or give an https:// origin',
  DATA_DIR: 'point DATA_DIR at a writable folder',
};

/** A refused variable: named, with its reason (which never holds the value). */
export function configurationProblem(problem: ConfigError): FailedLine {
  const reason = /^[^:]+: (.*)$/s.exec(problem.message)?.[1] ?? problem.message;
  const fixes: Partial<Record<string, string>> = FIXES;
  const fix = APPLE_VARIABLES.includes(problem.variable)
    ? APPLE_FIX
    : (fixes[problem.variable] ?? `correct ${problem.variable} (README.md, "Configuration" lists every variable)`);
  return bad(problem.variable, reason.replace(/\.$/, ''), fix);
}
