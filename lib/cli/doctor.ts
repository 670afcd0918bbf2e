// `npm run doctor`: checks a configuration before it goes live. It reads the environment the
// service reads, through the same loadConfig, and prints one line per check:
//   ✓ <what>
//   ✗ <what>: <problem>. Fix: <how>
// and exits 1 when a check fails, 0 otherwise. A warning (the development certificates) is a ✗
// line that fails only with --production. Nothing secret is printed: no key, no certificate, no
// password, no URL path or query (RPC and webhook URLs carry API keys), no allowlist.
//
// It is safe to run next to the running service: it never opens an embedded database that a live
// process holds (see checkEmbeddedDatabase), and writes nothing but what the service itself would
// write at start (the development certificates, when none exist yet).
import { spawn } from 'node:child_process';
import { randomUUID, X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { unzipSync } from 'fflate';
import { Redis } from 'ioredis';
import pg from 'pg';
import * as pkijs from 'pkijs';
import { ConfigError, loadConfig, processEnvironment, type AppleSigning, type Config } from '../config';
import { DatabaseOpenError, embeddedDatabaseHolder, lockDataDir, withDefaultUser } from '../db/client';
import { describePolicy, needsRpc } from '../eligibility/policy';
import { checkAppleSigning, ensureDevelopmentChain } from '../passes/certificates';
import { createGoogleWallet } from '../passes/google-wallet';
import { createManifestSigner } from '../passes/manifest-signer';
import { buildPkpass } from '../passes/pkpass';

type Env = Record<string, string | undefined>;

export type CheckLine =
  | { ok: true; what: string }
  | { ok: false; what: string; problem: string; fix: string; warning?: boolean };

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

/** A certificate that expires within this many days fails the doctor: time to renew it. */
export const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 24 * 3600 * 1000;
const DEFAULT_TIMEOUT_MS = 3000;

const ok = (what: string): CheckLine => ({ ok: true, what });
const bad = (what: string, problem: string, fix: string, warning = false): CheckLine => ({ ok: false, what, problem, fix, warning });

export function formatLine(line: CheckLine): string {
  if (line.ok) return `✓ ${line.what}`;
  const note = line.warning ? ' (a warning: it fails the doctor only with --production)' : '';
  return `✗ ${line.what}: ${line.problem}. Fix: ${line.fix}${note}`;
}

export function isFailure(line: CheckLine, production = false): boolean {
  return !line.ok && (!line.warning || production);
}

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
      uses('CLAIM_POLICY', 'SOLANA_RPC_URL') ? single(checkSolanaRpc(config, timeoutMs)) : none(),
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
    'OPERATOR_WALLETS, CLAIM_POLICY and its RPC, webhooks and APNS_URL. One line per check.',
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

// ---------------------------------------------------------------------------------------------
// Configuration

const APPLE_VARIABLES = ['APPLE_PASS_TYPE_ID', 'APPLE_TEAM_ID', 'APPLE_SIGNER_CERT', 'APPLE_SIGNER_KEY', 'APPLE_SIGNER_KEY_PASSPHRASE', 'APPLE_WWDR_CERT'];

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

const FIXES: Record<string, string> = {
  OPERATOR_WALLETS: 'list wallet addresses separated by commas (README.md, "Configuration")',
  CLAIM_POLICY: 'correct the policy at that place (README.md, "Who may claim" shows each rule)',
  SOLANA_RPC_URL: 'set SOLANA_RPC_URL to a Solana JSON-RPC endpoint such as https://api.mainnet-beta.solana.com',
  WEBHOOK_SECRET: 'make one with: echo "whsec_$(openssl rand -base64 32)"',
  APNS_URL: 'unset it (https://api.push.apple.com) or give an https:// origin',
  DATA_DIR: 'point DATA_DIR at a writable folder',
};

/** A refused variable: named, with its reason (which never holds the value). */
function configurationProblem(problem: ConfigError): CheckLine {
  const [, reason] = /^[^:]+: (.*)$/s.exec(problem.message) ?? [undefined, problem.message];
  const fix = APPLE_VARIABLES.includes(problem.variable)
    ? 'see README.md, "Apple Wallet signing material"'
    : (FIXES[problem.variable] ?? `correct ${problem.variable} (README.md, "Configuration" lists every variable)`);
  return bad(problem.variable, reason!.replace(/\.$/, ''), fix);
}

// ---------------------------------------------------------------------------------------------
// Apple

type AppleMaterial = { apple: AppleSigning; signer: X509Certificate; wwdr: X509Certificate; key?: KeyObject; development: boolean };

const APPLE_FIX = 'see README.md, "Apple Wallet signing material"';
const RENEW_FIX = 'create a new Pass Type ID certificate in the Apple Developer portal and replace APPLE_SIGNER_CERT and APPLE_SIGNER_KEY';

async function appleChecks(config: Config, options: { production: boolean; now: Date; openssl: string }): Promise<CheckLine[]> {
  const lines: CheckLine[] = [];
  if (!config.apple) lines.push(checkDevelopmentCertificates(options.production));
  const material = readAppleMaterial(config);
  if ('problem' in material) return [...lines, material];
  lines.push(
    checkKeyMatchesCertificate(material),
    checkCertificateNotExpiring(material, options.now),
    checkWwdrIssuedSigner(material, options.now),
    checkCertificateNamesPassType(material),
    await checkSamplePass(config, material, options.now, options.openssl),
  );
  return lines;
}

/** Prevents: "the pass downloads but my iPhone won't add it" (a development chain is not Apple's). */
function checkDevelopmentCertificates(production: boolean): CheckLine {
  return bad(
    'development certificates',
    'passes will not install on a phone (no Apple certificates are configured, so a development chain in DATA_DIR signs them)',
    'set APPLE_PASS_TYPE_ID, APPLE_TEAM_ID, APPLE_SIGNER_CERT, APPLE_SIGNER_KEY and APPLE_WWDR_CERT (README.md, "Apple Wallet signing material")',
    !production,
  );
}

/** The configured material, or the development chain (created in DATA_DIR, as the service would). */
function readAppleMaterial(config: Config): AppleMaterial | Extract<CheckLine, { ok: false }> {
  const development = !config.apple;
  let apple: AppleSigning;
  try {
    apple = config.apple ?? { ...ensureDevelopmentChain(config.dataDir) };
  } catch (error) {
    return { ok: false, what: 'development certificates', problem: `cannot be created in DATA_DIR (${errorSummary(error)})`, fix: FIXES.DATA_DIR! };
  }
  const certificate = (pem: string, variable: string) => {
    try {
      return new X509Certificate(pem);
    } catch {
      throw bad(variable, 'is not a PEM certificate', APPLE_FIX);
    }
  };
  try {
    const signer = certificate(apple.signerCertPem, 'APPLE_SIGNER_CERT');
    const wwdr = certificate(apple.wwdrCertPem, 'APPLE_WWDR_CERT');
    let key: KeyObject | undefined;
    try {
      key = createPrivateKey({ key: apple.signerKeyPem, format: 'pem', passphrase: apple.signerKeyPassphrase });
    } catch {
      key = undefined; // reported by checkKeyMatchesCertificate
    }
    return { apple, signer, wwdr, key, development };
  } catch (line) {
    return line as Extract<CheckLine, { ok: false }>;
  }
}

/** Prevents: "every download fails" or "Wallet says the pass is invalid" (a key from another certificate). */
function checkKeyMatchesCertificate({ signer, key, apple, development }: AppleMaterial): CheckLine {
  const what = `${chainName(development)} signer key matches the signer certificate`;
  if (!key) {
    return bad(
      what,
      apple.signerKeyPassphrase === undefined ? 'APPLE_SIGNER_KEY cannot be read as a PEM private key' : 'APPLE_SIGNER_KEY cannot be read with APPLE_SIGNER_KEY_PASSPHRASE',
      'give the key the certificate was made with (and APPLE_SIGNER_KEY_PASSPHRASE if it is encrypted)',
    );
  }
  if (!signer.checkPrivateKey(key)) {
    return bad(what, 'APPLE_SIGNER_KEY belongs to another certificate', 'give the key made with the CSR of this certificate, or the certificate of this key');
  }
  return ok(what);
}

/** Prevents: "passes stopped installing one morning" (the certificate ran out; Apple's last a year). */
function checkCertificateNotExpiring({ signer, development }: AppleMaterial, now: Date): CheckLine {
  const validTo = new Date(signer.validTo);
  const validFrom = new Date(signer.validFrom);
  const date = isoDate(validTo);
  const what = `${chainName(development)} signer certificate valid until ${date}`;
  if (validFrom > now) return bad(what, `it is not valid before ${isoDate(validFrom)}`, 'check the clock of this machine, or use a certificate valid now');
  if (validTo <= now) return bad(what, `it expired on ${date}`, RENEW_FIX);
  const daysLeft = Math.floor((validTo.getTime() - now.getTime()) / DAY_MS);
  if (daysLeft < EXPIRY_WARNING_DAYS) return bad(what, `it expires on ${date}, in ${daysLeft} ${daysLeft === 1 ? 'day' : 'days'}`, RENEW_FIX);
  return ok(what);
}

/** Prevents: "Wallet rejects the pass" (signer chained to the old WWDR G1, or the wrong intermediate). */
function checkWwdrIssuedSigner({ signer, wwdr, development }: AppleMaterial, now: Date): CheckLine {
  const what = `${development ? 'development WWDR' : 'APPLE_WWDR_CERT'} issued the signer certificate`;
  const fix = 'use the WWDR intermediate that issued it (today G4: https://www.apple.com/certificateauthority/)';
  // checkIssued compares names (and key identifiers, when present); only the signature proves it.
  if (!signer.checkIssued(wwdr)) return bad(what, `the signer certificate was issued by "${describeName(signer.issuer)}", not by "${describeName(wwdr.subject)}"`, fix);
  if (!signer.verify(wwdr.publicKey)) return bad(what, 'it has the name of the signer certificate\'s issuer, but its key did not sign it', fix);
  if (new Date(wwdr.validTo) <= now) return bad(what, `the WWDR certificate expired on ${isoDate(new Date(wwdr.validTo))}`, fix);
  return ok(what);
}

const UID_OID = '0.9.2342.19200300.100.1.1';
const OU_OID = '2.5.4.11';

/**
 * Prevents: "Wallet says the pass is invalid" when pass.json's ids are not the certificate's. An
 * Apple Pass Type ID certificate names them in its subject: UID=<pass type id>, OU=<team id>.
 */
function checkCertificateNamesPassType({ signer, apple, development }: AppleMaterial): CheckLine {
  const [typeVariable, teamVariable] = development ? ['the development pass type id', 'team id'] : ['APPLE_PASS_TYPE_ID', 'APPLE_TEAM_ID'];
  const what = `signer certificate is for ${typeVariable} ${apple.passTypeIdentifier} and ${teamVariable} ${apple.teamIdentifier}`;
  const subject = pkijs.Certificate.fromBER(signer.raw).subject.typesAndValues;
  const attribute = (oid: string): string | undefined => {
    const value: unknown = subject.find((entry) => entry.type === oid)?.value.valueBlock.value;
    return typeof value === 'string' ? value : undefined;
  };
  const uid = attribute(UID_OID);
  const ou = attribute(OU_OID);
  if (uid === apple.passTypeIdentifier && ou === apple.teamIdentifier) return ok(what);
  return bad(
    what,
    `the certificate's subject has UID=${uid ?? '(none)'}, OU=${ou ?? '(none)'}`,
    uid?.startsWith('pass.')
      ? `set APPLE_PASS_TYPE_ID=${uid} and APPLE_TEAM_ID=${ou ?? '<your team id>'}, or use the certificate made for ${apple.passTypeIdentifier}`
      : 'use a Pass Type ID certificate from the Apple Developer portal',
  );
}

/**
 * Prevents: "the download is a broken pass" (anything between the certificates and the zip).
 * Builds a pass exactly as the service does and verifies its signature as the contract states,
 * with `openssl cms -verify`; where openssl cannot be run, with pkijs.
 */
async function checkSamplePass(config: Config, material: AppleMaterial, now: Date, openssl: string): Promise<CheckLine> {
  let what = 'a sample pass builds and its signature verifies (openssl cms -verify)';
  let signing;
  try {
    signing = material.development ? { ...ensureDevelopmentChain(config.dataDir) } : checkAppleSigning(material.apple, now);
  } catch (error) {
    return bad(what, `not built: ${(error as Error).message}`, 'fix the Apple problems above first');
  }
  try {
    const signer = await createManifestSigner(signing);
    const issuer = { signing, signer, organizationName: config.organizationName, description: config.passDescription, publicBaseUrl: config.publicBaseUrl, chainId: config.chainId };
    const pass = await buildPkpass({ serialNumber: randomUUID(), publicKey: SAMPLE_WALLET, walletType: 'Generic', claimedAt: now }, issuer);
    const files = unzipSync(pass);
    const manifest = files['manifest.json'];
    const signature = files.signature;
    if (!manifest || !signature) return bad(what, 'the pass has no manifest.json or no signature', 'report this as a bug');
    const passJson = JSON.parse(Buffer.from(files['pass.json']!).toString('utf8')) as { passTypeIdentifier?: string; teamIdentifier?: string };
    if (passJson.passTypeIdentifier !== signing.passTypeIdentifier || passJson.teamIdentifier !== signing.teamIdentifier) {
      return bad(what, 'pass.json does not carry the configured pass type id and team id', 'report this as a bug');
    }
    const verdict = await opensslVerify(openssl, signature, manifest);
    if (verdict === 'unavailable') {
      what = 'a sample pass builds and its signature verifies (pkijs: openssl could not be run)';
      return (await pkijsVerify(signature, manifest)) ? ok(what) : bad(what, 'the signature does not verify', 'report this as a bug, with the openssl version');
    }
    const reason = verdict.output.split('\n')[0];
    return verdict.ok ? ok(what) : bad(what, `openssl refused the signature${reason ? ` (${reason})` : ''}`, 'report this as a bug, with the openssl version');
  } catch (error) {
    return bad(what, `building it failed (${errorSummary(error)})`, 'check PASS_ORGANIZATION_NAME, PASS_DESCRIPTION and PUBLIC_BASE_URL; otherwise report this as a bug');
  }
}

/** Any valid address: the sample pass is never served. */
const SAMPLE_WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';

/** `openssl cms -verify -binary -inform DER -in signature -content manifest.json -noverify`, in a scratch folder. */
async function opensslVerify(openssl: string, signature: Uint8Array, manifest: Uint8Array): Promise<{ ok: boolean; output: string } | 'unavailable'> {
  const dir = mkdtempSync(path.join(tmpdir(), 'wpc-doctor-'));
  try {
    writeFileSync(path.join(dir, 'signature'), signature);
    writeFileSync(path.join(dir, 'manifest.json'), manifest);
    const args = ['cms', '-verify', '-binary', '-inform', 'DER', '-in', 'signature', '-content', 'manifest.json', '-noverify', '-out', 'verified'];
    return await new Promise((resolve) => {
      const child = spawn(openssl, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('error', () => resolve('unavailable'));
      child.on('close', (code) => resolve({ ok: code === 0, output: output.trim() }));
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same verification (signature over the signed attributes, digest of manifest.json) in pkijs. */
async function pkijsVerify(signature: Uint8Array, manifest: Uint8Array): Promise<boolean> {
  try {
    const contentInfo = pkijs.ContentInfo.fromBER(Buffer.from(signature));
    const signedData = new pkijs.SignedData({ schema: contentInfo.content });
    const data = new Uint8Array(manifest).buffer; // pkijs wants an ArrayBuffer of exactly the content
    return await signedData.verify({ signer: 0, data, checkChain: false });
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Database

/** PostgreSQL when DATABASE_URL is set, otherwise the embedded database in DATA_DIR. */
async function checkDatabase(config: Config, timeoutMs: number): Promise<CheckLine[]> {
  return [config.databaseUrl ? await checkPostgres(config.databaseUrl, timeoutMs) : await checkEmbeddedDatabase(config, timeoutMs)];
}

/** Prevents: "the service starts but every claim answers 503" (PostgreSQL down, wrong host or credentials). */
async function checkPostgres(url: string, timeoutMs: number): Promise<CheckLine> {
  const server = `PostgreSQL at ${describeUrl(url)}`;
  const client = new pg.Client({
    connectionString: withDefaultUser(url),
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    application_name: 'wallet-pass-claim doctor',
  });
  client.on('error', () => {}); // a connection dropping after the answer is not this check's concern
  try {
    await client.connect();
    await client.query('select 1');
    return ok(`database answers select 1 (${server})`);
  } catch (error) {
    return bad(`database (${server})`, `does not answer select 1 (${redact(errorSummary(error), url)})`, 'start PostgreSQL, or correct DATABASE_URL (host, port, database, user, password)');
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Prevents: "the service will not start" (a damaged embedded database), without disturbing one that runs.
 *
 * The embedded database belongs to one process: the service holds DATA_DIR/pglite.lock while it
 * runs, and a second process opening the same directory would corrupt it. So the doctor never
 * opens a database held by a live process; it asks that process's GET /health instead (200 means
 * the service and its database answer). When nobody holds it, the doctor takes the lock the way
 * the service does, opens it, runs select 1, closes it and releases the lock: a service started
 * in that second fails with "in use by process <doctor pid>" and can simply be started again.
 */
async function checkEmbeddedDatabase(config: Config, timeoutMs: number): Promise<CheckLine> {
  const holder = embeddedDatabaseHolder(config.dataDir);
  if (holder !== undefined) return checkRunningService(config, holder, timeoutMs);
  const dir = path.join(config.dataDir, 'pglite');
  if (!existsSync(dir)) return ok(`embedded database: none in DATA_DIR yet (${config.dataDir}); the service creates it at first start`);
  const what = `embedded database in DATA_DIR answers select 1 (${config.dataDir})`;
  let release: () => void;
  try {
    release = lockDataDir(config.dataDir);
  } catch (error) {
    const racer = embeddedDatabaseHolder(config.dataDir);
    if (error instanceof DatabaseOpenError && racer !== undefined) return checkRunningService(config, racer, timeoutMs);
    return bad(what, `it cannot be locked (${errorSummary(error)})`, 'check the permissions of DATA_DIR');
  }
  let client: PGlite | undefined;
  try {
    client = await PGlite.create(dir);
    await client.query('select 1');
    return ok(what);
  } catch (error) {
    return bad(what, `it cannot be opened (${errorSummary(error)})`, 'restore DATA_DIR/pglite from a backup, or move it away to start afresh');
  } finally {
    await client?.close().catch(() => {});
    release();
  }
}

/** Prevents: "the doctor says fine but the site is down": the process holding the database must answer. */
async function checkRunningService(config: Config, pid: number, timeoutMs: number): Promise<CheckLine> {
  // The holder runs on this machine: ask it directly unless a public origin was configured.
  const base = config.publicBaseUrl === `http://localhost:${config.port}` ? `http://127.0.0.1:${config.port}` : config.publicBaseUrl;
  const url = `${base}/health`;
  const what = `embedded database in use by the running service (pid ${pid}); GET ${url} answers 200`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await response.body?.cancel();
    if (response.status === 200) return ok(what);
    return bad(what, `it answered ${response.status}`, `read the log of process ${pid}: its database does not answer`);
  } catch (error) {
    return bad(
      what,
      `it does not answer (${errorSummary(error)})`,
      `if process ${pid} is not this service, stop it or give this service another DATA_DIR; if it is, check PORT and PUBLIC_BASE_URL`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Redis

/** Prevents: "rate limits are per instance after all" (REDIS_URL set but Redis unreachable). */
async function checkRedis(config: Config, timeoutMs: number): Promise<CheckLine> {
  if (!config.redisUrl) return ok('Redis: not configured (rate limits are counted per instance)');
  const server = describeUrl(config.redisUrl);
  const redis = new Redis(config.redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null, // one attempt: the doctor reports, it does not wait for recovery
  });
  // connect() rejects with "Connection is closed."; the socket's own error says why.
  let cause: unknown;
  redis.on('error', (error) => (cause ??= error));
  try {
    await redis.connect();
    const answer = await redis.ping();
    if (answer === 'PONG') return ok(`Redis answers PING (${server})`);
    return bad(`Redis (${server})`, `answered PING with something else than PONG`, 'check that REDIS_URL points at a Redis server');
  } catch (error) {
    return bad(`Redis (${server})`, `does not answer PING (${redact(errorSummary(cause ?? error), config.redisUrl)})`, 'start Redis, or correct REDIS_URL (host, port, password)');
  } finally {
    redis.disconnect();
  }
}

// ---------------------------------------------------------------------------------------------
// Google Wallet

/** Prevents: "the Save to Google Wallet link is refused" (a key that cannot sign RS256 JWTs). */
async function checkGoogleKey(config: Config): Promise<CheckLine> {
  if (!config.google) return ok('Google Wallet: not configured (passes have no Save to Google Wallet link)');
  const what = `Google Wallet service account key is an RSA PKCS#8 key, client_email ${config.google.clientEmail}`;
  try {
    await createGoogleWallet(config); // the service's own check: imports the key as RS256, measures link length
    return ok(what);
  } catch (error) {
    const reason = error instanceof ConfigError ? error.message : errorSummary(error);
    return bad(what, reason, 'download a new JSON key for the service account (Google Cloud console, IAM, Service accounts, Keys)');
  }
}

// ---------------------------------------------------------------------------------------------
// Operators, who may claim, the chain

/** Prevents: "I cannot sign in to the console" going unnoticed until the day it is needed. */
function checkOperatorWallets(config: Config): CheckLine {
  const count = config.operatorWallets.length;
  if (count === 0) return ok('OPERATOR_WALLETS: none (nobody can sign in to the operator console)');
  return ok(`OPERATOR_WALLETS: ${count} operator ${count === 1 ? 'wallet' : 'wallets'}, each an address`);
}

/** Prevents: "everyone (or no one) can claim" from a policy that did not say what was meant. */
function checkClaimPolicy(config: Config): CheckLine {
  if (!config.claimPolicy) return ok('CLAIM_POLICY: not set (anyone may claim)');
  return ok(`CLAIM_POLICY parses: ${describePolicy(config.claimPolicy)}`);
}

/** Prevents: "every claim answers 503" when the policy reads the chain through a dead RPC endpoint. */
async function checkSolanaRpc(config: Config, timeoutMs: number): Promise<CheckLine> {
  const needed = config.claimPolicy !== undefined && needsRpc(config.claimPolicy);
  if (!config.solanaRpcUrl) return ok('SOLANA_RPC_URL: not set (no CLAIM_POLICY rule reads the chain)');
  const server = describeUrl(config.solanaRpcUrl);
  const what = `SOLANA_RPC_URL (${server})`;
  const fix = 'check the endpoint and its API key, or choose another RPC provider';
  try {
    let answer = await jsonRpc(config.solanaRpcUrl, 'getHealth', timeoutMs);
    // Some providers do not offer getHealth (-32601, method not found): getVersion says as much.
    if (answer.error?.code === -32601) answer = await jsonRpc(config.solanaRpcUrl, 'getVersion', timeoutMs);
    if (answer.error) return bad(what, `answered getHealth with JSON-RPC error ${answer.error.code ?? '?'} (the node may be behind)`, fix);
    if (answer.result === undefined) return bad(what, 'answered getHealth with something that is not JSON-RPC', fix);
    return ok(`SOLANA_RPC_URL answers getHealth (${server})${needed ? '' : ', though no CLAIM_POLICY rule reads the chain'}`);
  } catch (error) {
    return bad(what, `does not answer getHealth (${redact(errorSummary(error), config.solanaRpcUrl)})`, fix);
  }
}

type JsonRpcAnswer = { result?: unknown; error?: { code?: number } };

async function jsonRpc(url: string, method: string, timeoutMs: number): Promise<JsonRpcAnswer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  let answer: JsonRpcAnswer;
  try {
    answer = JSON.parse(text) as JsonRpcAnswer;
  } catch {
    throw new Error(`HTTP ${response.status}, not JSON`);
  }
  if (!response.ok && !answer.error) throw new Error(`HTTP ${response.status}`);
  return answer;
}

// ---------------------------------------------------------------------------------------------
// Webhooks, APNs

/** Prevents: "no events arrive" from a half-configured pair (the config refuses one without the other). */
function checkWebhook(config: Config): CheckLine {
  if (!config.webhook) return ok('webhooks: not configured (no events are sent)');
  return ok(`webhooks: WEBHOOK_URL and WEBHOOK_SECRET are well-formed (events go to ${describeUrl(config.webhook.url)}, signed with a ${config.webhook.key.length}-byte secret)`);
}

/** Prevents: "updates never reach the phone" (APNs speaks HTTP/2 over TLS only). */
function checkApnsUrl(config: Config): CheckLine {
  return ok(`APNS_URL is https (${new URL(config.apnsUrl).host})`);
}

// ---------------------------------------------------------------------------------------------
// Helpers

const chainName = (development: boolean) => (development ? 'development' : 'Apple');

const isoDate = (date: Date) => date.toISOString().slice(0, 10);

/** A distinguished name on one line: "CN=…, OU=G4, O=Apple Inc., C=US" (the OU tells WWDR G1 from G4). */
const describeName = (distinguishedName: string) => distinguishedName.split('\n').filter(Boolean).join(', ');

/** scheme://host:port/database: enough to recognise a server, never credentials, a query or an API key in the path. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const database = parsed.protocol.startsWith('postgres') ? parsed.pathname : '';
    return `${parsed.protocol}//${parsed.host}${database}`;
  } catch {
    return 'an unparseable URL';
  }
}

/** An error in a few words: its code and message, on one line. */
function errorSummary(error: unknown): string {
  const e = error as { code?: string; message?: string; name?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'no answer in time';
  const cause = e?.cause?.code ?? e?.cause?.message;
  const code = e?.code && !e?.message?.includes(e.code) ? e.code : undefined;
  const text = [code, e?.message, cause && !e?.message?.includes(cause) ? cause : undefined].filter(Boolean).join(': ') || String(error);
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

/** Drivers may quote their connection string in an error; its password and query never pass. */
function redact(text: string, url: string): string {
  try {
    const parsed = new URL(url);
    let out = text;
    for (const secret of [parsed.password, decodeURIComponent(parsed.password), parsed.search, parsed.pathname.length > 1 ? parsed.pathname : '']) {
      if (secret && secret.length >= 3) out = out.split(secret).join('***');
    }
    return out;
  } catch {
    return text;
  }
}
