// The command-line claim (scripts/claim.ts runs it): a Solana CLI keypair proves its wallet to the
// service through the typed client, and the pass is saved to a file. Every failure is one line on
// stderr and its own exit code, so scripts can branch on what went wrong.
import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type ClaimApiError, createClaimClient, isClaimApiError } from '../client';
import { type ErrorCode, PROBLEMS } from '../errors';
import { KeypairError, parseSolanaKeypair, signMessage } from '../solana-keypair';
import { WALLET_TYPES } from '../wallet-types';

export const DEFAULT_URL = 'http://localhost:3000';
export const DEFAULT_KEYPAIR = '~/.config/solana/id.json';

/** Exit codes of the command's own failures. Stable: scripts depend on them. */
export const LOCAL_EXIT_CODES = {
  unexpected: { exitCode: 1, meaning: 'an answer that is not this API, or a bug' },
  usage: { exitCode: 2, meaning: 'bad arguments' },
  keypair_unreadable: { exitCode: 3, meaning: 'the keypair file cannot be read (missing, a directory, no permission)' },
  keypair_invalid: { exitCode: 4, meaning: 'the file is not a Solana keypair: not a JSON array of 64 numbers 0-255, or its public half does not match' },
  network_error: { exitCode: 5, meaning: 'the service cannot be reached (refused, no such host, timed out)' },
  save_failed: { exitCode: 6, meaning: 'the pass could not be written to --out' },
} as const;

/** Exit codes of the service's problem codes. A new code in PROBLEMS fails to compile until it has one. */
export const PROBLEM_EXIT_CODES: Record<ErrorCode, number> = {
  invalid_request: 10,
  message_not_issued: 11,
  message_expired: 12,
  signature_invalid: 13,
  pass_not_found: 14,
  not_found: 22,
  method_not_allowed: 23,
  message_already_used: 15,
  payload_too_large: 16,
  unsupported_media_type: 17,
  rate_limited: 18,
  service_unavailable: 19,
  internal_error: 20,
  google_wallet_not_configured: 21,
  not_eligible: 24,
  program_closed: 25,
  sold_out: 26,
  program_not_found: 27,
  // Operator codes: the claim command never meets them, but every code has its exit code.
  unauthorized: 30,
  forbidden: 31,
  api_key_not_found: 32,
  delivery_not_found: 33,
  invalid_image: 34,
  program_exists: 35,
  image_not_found: 36,
  update_not_found: 37,
};

type Output = { stdout: (line: string) => void; stderr: (line: string) => void };

/** A failure of the command: one line for stderr and the exit code. */
export class CliFailure extends Error {
  constructor(
    readonly exitCode: number,
    readonly line: string,
  ) {
    super(line);
  }
}

export function helpText(): string {
  type Code = [exitCode: string, meaning: string];
  const codes: Code[] = [
    ['0', 'the pass was claimed and saved'],
    ...Object.values(LOCAL_EXIT_CODES).map(({ exitCode, meaning }): Code => [String(exitCode), meaning]),
    ...Object.entries(PROBLEM_EXIT_CODES).map(
      ([code, exitCode]): Code => [String(exitCode), `${code} (${PROBLEMS[code as ErrorCode].status}): ${PROBLEMS[code as ErrorCode].title.toLowerCase()}`],
    ),
  ];
  codes.sort(([a], [b]) => Number(a) - Number(b));
  return `Usage: npm run claim -- [--keypair <file>] [--url <origin>] [--program <slug>] [--wallet-type <name>] [--out <file>]

Claims the wallet pass of a Solana keypair: asks the service for a sign-in message, signs it with
the keypair (Ed25519, locally: the secret key never leaves this machine), claims the pass, prints
its download URL and saves the .pkpass file.

Options:
  -k, --keypair <file>       A Solana CLI keypair file: a JSON array of 64 numbers, as
                             solana-keygen (or npm run keygen) writes it. Default: ${DEFAULT_KEYPAIR}
  -u, --url <origin>         The service. Default: ${DEFAULT_URL}
  -p, --program <slug>       The program to claim from (its claim page is <origin>/p/<slug>).
                             Default: the default program.
  -w, --wallet-type <name>   The pass design. Default: Generic. One of:
${wrap(WALLET_TYPES.join(', '), 29, 100)}
                             (Quote names with spaces: --wallet-type "Coinbase Wallet".)
  -o, --out <file>           Where to save the pass. Default: the file name the service gives,
                             in the current directory.
  -h, --help                 This help.

Output: the download URL on stdout (one line); progress on stderr. A wallet has one pass per
program: claiming again gives the same URL. Every failure is one line on stderr, "claim: <what>: <why>", and an
exit code:
${codes.map(([exitCode, meaning]) => `  ${exitCode.padStart(2)}  ${meaning}`).join('\n')}
`;
}

type Options = { keypair: string; keypairGiven: boolean; url: string; program?: string; walletType?: string; out?: string; help: boolean };

/** The command line's options by name; a usage error for anything parseArgs refuses. */
function readArgs(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        keypair: { type: 'string', short: 'k' },
        url: { type: 'string', short: 'u' },
        program: { type: 'string', short: 'p' },
        'wallet-type': { type: 'string', short: 'w' },
        out: { type: 'string', short: 'o' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    throw usage(`${(error as Error).message.split('\n')[0]}`);
  }
}

export function parseOptions(argv: string[]): Options {
  const values = readArgs(argv);
  const url = values.url ?? DEFAULT_URL;
  if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url)) throw usage(`--url must be an http:// or https:// origin, not "${url}"`);
  return {
    keypair: values.keypair ?? DEFAULT_KEYPAIR,
    keypairGiven: values.keypair !== undefined,
    url,
    program: values.program,
    walletType: values['wallet-type'],
    out: values.out,
    help: values.help ?? false,
  };
}

/** Runs the command; resolves to its exit code. */
export async function runClaim(argv: string[], output: Output, fetchImpl?: typeof fetch): Promise<number> {
  try {
    const options = parseOptions(argv);
    if (options.help) {
      output.stdout(helpText());
      return 0;
    }
    const keypair = readKeypair(expandHome(options.keypair), options.keypairGiven);
    const client = createClaimClient({ baseUrl: options.url, fetch: fetchImpl });

    const issued = await client.init(keypair.address, { program: options.program });
    const claimed = await client.claim({
      message: issued.message,
      signature: signMessage(keypair, issued.message),
      publicKey: keypair.address,
      ...(options.program !== undefined ? { program: options.program } : {}),
      ...(options.walletType !== undefined ? { walletType: options.walletType as never } : {}),
    });
    const of = options.program !== undefined ? ` of ${options.program}` : '';
    output.stderr(claimed.created ? `Claimed a new pass${of} for ${keypair.address}.` : `${keypair.address} already had a pass${of}: here it is again.`);
    output.stdout(claimed.downloadUrl);

    const file = await client.download(claimed.downloadUrl);
    const target = path.resolve(expandHome(options.out ?? file.filename));
    try {
      writeFileSync(target, file.bytes);
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such directory' : systemReason(error);
      throw new CliFailure(LOCAL_EXIT_CODES.save_failed.exitCode, `claim: cannot save the pass to ${target}: ${reason}`);
    }
    output.stderr(`Saved the pass to ${target} (${file.bytes.length} bytes).`);
    return 0;
  } catch (error) {
    const failure = describeFailure(error);
    output.stderr(failure.line);
    return failure.exitCode;
  }
}

/** Any error of the command as one line and an exit code. */
export function describeFailure(error: unknown): CliFailure {
  if (error instanceof CliFailure) return error;
  if (isClaimApiError(error)) return apiFailure(error);
  return new CliFailure(LOCAL_EXIT_CODES.unexpected.exitCode, `claim: unexpected error: ${(error as Error)?.message ?? String(error)}`);
}

function apiFailure(error: ClaimApiError): CliFailure {
  const detail = oneLine(error.detail);
  if (error.code === 'network_error') return new CliFailure(LOCAL_EXIT_CODES.network_error.exitCode, `claim: network_error: ${detail}`);
  const exitCode = PROBLEM_EXIT_CODES[error.code as ErrorCode];
  if (exitCode === undefined) {
    return new CliFailure(LOCAL_EXIT_CODES.unexpected.exitCode, `claim: ${error.code}${error.status ? ` (HTTP ${error.status})` : ''}: ${detail}`);
  }
  return new CliFailure(exitCode, `claim: ${error.code} (${error.status}): ${detail}`);
}

function readKeypair(file: string, given: boolean) {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const hint = given ? '' : ' (the default; name yours with --keypair, or make one with npm run keygen)';
    throw new CliFailure(LOCAL_EXIT_CODES.keypair_unreadable.exitCode, `claim: cannot read the keypair file ${file}: ${systemReason(error)}${hint}`);
  }
  try {
    return parseSolanaKeypair(text);
  } catch (error) {
    if (!(error instanceof KeypairError)) throw error;
    throw new CliFailure(LOCAL_EXIT_CODES.keypair_invalid.exitCode, `claim: ${file} is not a Solana keypair: ${error.message}`);
  }
}

function usage(reason: string): CliFailure {
  return new CliFailure(LOCAL_EXIT_CODES.usage.exitCode, `claim: usage: ${reason} (see --help)`);
}

/** "~/x" is the home directory's x, also where the shell did not expand it (--keypair=~/x). */
function expandHome(file: string): string {
  return file === '~' || file.startsWith('~/') ? path.join(homedir(), file.slice(1)) : file;
}

function systemReason(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  const reasons: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EISDIR: 'it is a directory',
    ENOTDIR: 'a part of the path is not a directory',
  };
  return (code && reasons[code]) ?? message;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** `text` in lines of at most `width` characters, each indented by `indent` spaces. */
function wrap(text: string, indent: number, width: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.map((l) => `${' '.repeat(indent)}${l}`).join('\n');
}
