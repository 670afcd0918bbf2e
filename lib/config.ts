// Environment -> typed, validated configuration. The only module that reads process.env.
// Every variable is optional; a bad value stops start-up with one line naming the variable.
//
// Secrets (keys, certificates, service accounts, the webhook secret, URLs that may carry an API
// key) are never repeated in an error: the line goes to logs and terminals.
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from './config-error';
import {
  apnsOrigin,
  downloadIdKey,
  httpUrl,
  integer,
  isLoopbackHost,
  jsonOrPath,
  origin,
  pemOrPath,
  secretKey,
  serviceAccount,
  singleLine,
  walletList,
  webhookSecret,
  wsUrl,
} from './config-values';
import { type ClaimPolicy, needsRpc, parseClaimPolicy } from './eligibility/policy';
import { firstIssue } from './validate';

export { ConfigError };

export const DEFAULT_STATEMENT = 'Sign this message to prove you own this wallet and claim your wallet pass. No transaction, no fee.';

/**
 * True under `next dev`, whose React build needs eval and injects styles without a nonce (the page
 * CSP relaxes for it). Next.js inlines NODE_ENV at build time; it is not a setting.
 */
export const isDevelopmentBuild = (): boolean => process.env.NODE_ENV === 'development';

/** Development identifiers used when no Apple certificates are configured. */
export const DEV_PASS_TYPE_ID = 'pass.dev.wallet-pass-claim';
export const DEV_TEAM_ID = 'DEVTEAM000';

export const DEFAULT_APNS_URL = 'https://api.push.apple.com';
/** Google's Wallet REST API origin; the paths are /walletobjects/v1/... */
export const DEFAULT_GOOGLE_WALLET_API_URL = 'https://walletobjects.googleapis.com';
/** Where a service account's assertions go when its key file names no token_uri. */
export const DEFAULT_GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';

const envSchema = z.object({
  PORT: integer(1, 65535).default(3000),
  PUBLIC_BASE_URL: z.string().optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
    // Never echoed (it holds a password): an unescaped # or space in the password is the usual cause.
    .refine((value) => URL.canParse(value) && !value.includes('#'), {
      message: 'must be a URL such as postgres://user:password@host:5432/database, its user name and password percent-encoded (# is %23, @ is %40)',
    })
    .optional(),
  DATABASE_POOL_SIZE: integer(1, 1000).default(10),
  DATABASE_TIMEOUT_MS: integer(100, 600_000).default(2000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
    .optional(),
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9:_.-]{1,64}$/, 'must be 1-64 letters, digits or : _ . -')
    .default('wallet-pass-claim'),
  RATE_LIMIT_PER_MINUTE: integer(0, 1_000_000).default(60),
  TRUST_PROXY: z
    .string()
    .trim()
    .transform((v, ctx) => {
      if (v === '' || v === 'false' || v === '0') return 0;
      if (v === 'true') return 1;
      if (/^\d+$/.test(v) && Number(v) <= 32) return Number(v);
      ctx.addIssue({ code: 'custom', message: 'must be true, false, or a number of proxy hops (1-32)' });
      return 0;
    })
    .default(0),
  NONCE_TTL_SECONDS: integer(1, 7 * 24 * 3600).default(600),
  PENDING_MESSAGES_PER_KEY: integer(1, 1000).default(5),
  INIT_BUDGET_PER_SECOND: integer(0, 1_000_000).default(100),
  MAX_CONNECTIONS: integer(1, 1_000_000).default(1024),
  MAX_CONNECTIONS_PER_IP: integer(0, 1_000_000).default(256),
  DOWNLOAD_ID_KEY: downloadIdKey.optional(),
  SOLANA_CHAIN_ID: z
    .string()
    .regex(/^[A-Za-z0-9:_-]{1,64}$/, 'must be a chain id such as mainnet, devnet or solana:mainnet')
    .default('mainnet'),
  CLAIM_STATEMENT: singleLine(500).default(DEFAULT_STATEMENT),
  PASS_ORGANIZATION_NAME: singleLine(64).default('Wallet Pass'),
  PASS_DESCRIPTION: singleLine(128).default('Solana wallet pass'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  APPLE_PASS_TYPE_ID: z
    .string()
    .regex(/^pass\.[A-Za-z0-9.-]+$/, 'must look like pass.com.example.name')
    .optional(),
  APPLE_TEAM_ID: z
    .string()
    .regex(/^[A-Z0-9]{10}$/, 'must be the 10-character Apple team id')
    .optional(),
  APPLE_SIGNER_CERT: pemOrPath.optional(),
  APPLE_SIGNER_KEY: pemOrPath.optional(),
  APPLE_SIGNER_KEY_PASSPHRASE: z.string().optional(),
  APPLE_WWDR_CERT: pemOrPath.optional(),
  GOOGLE_WALLET_ISSUER_ID: z
    .string()
    .regex(/^\d{5,25}$/, 'must be the numeric issuer id')
    .optional(),
  GOOGLE_SERVICE_ACCOUNT: jsonOrPath.pipe(serviceAccount).optional(),
  OPERATOR_WALLETS: walletList.optional(),
  WEBHOOK_URL: httpUrl('https://hooks.example.com/wallet-pass').optional(),
  WEBHOOK_SECRET: webhookSecret.optional(),
  APNS_URL: apnsOrigin.default(DEFAULT_APNS_URL),
  DEVICES_PER_PASS: integer(1, 1000).default(10),
  GOOGLE_WALLET_API_URL: origin(DEFAULT_GOOGLE_WALLET_API_URL).default(DEFAULT_GOOGLE_WALLET_API_URL),
  // Google Wallet API calls per second, per instance, paced evenly (Google allows an issuer 20 in all).
  GOOGLE_WALLET_RPS: integer(1, 1000).default(15),
  PASSKIT_TOKEN_KEY: secretKey.optional(),
  SOLANA_RPC_URL: httpUrl('https://api.mainnet-beta.solana.com').optional(),
  // The same provider's PubSub endpoint: token transfers seen as they happen (lib/eligibility/subscriptions.ts).
  SOLANA_WS_URL: wsUrl('wss://api.mainnet-beta.solana.com').optional(),
  // Parsed after the schema (loadConfig), by the policy parser, which has its own error paths.
  CLAIM_POLICY: z.string().optional(),
  // At most a week: Node timers overflow past 24.8 days, and a slower re-check is no re-check.
  ELIGIBILITY_RECHECK_SECONDS: integer(0, 7 * 24 * 3600).default(3600),
  // One eligibility check's whole budget against the RPC, retries included: past it, 503.
  SOLANA_RPC_TIMEOUT_MS: integer(100, 60_000).default(5000),
  // The largest RPC answer read (decompressed): past it, 503. 4 MiB holds thousands of token accounts.
  SOLANA_RPC_MAX_BYTES: integer(1024, 1024 * 1024 * 1024).default(4 * 1024 * 1024),
  // Requests per second to SOLANA_RPC_URL, per instance, in any one-second window (Helius free: 10).
  SOLANA_RPC_RPS: integer(1, 10_000).default(10),
  // DAS requests per second, within SOLANA_RPC_RPS: providers limit DAS apart (Helius free: 2). Unset: only SOLANA_RPC_RPS.
  SOLANA_DAS_RPS: integer(1, 10_000).optional(),
  // How long a wallet that qualified is taken to still qualify (docs/eligibility.md says why that is safe).
  ELIGIBILITY_CACHE_SECONDS: integer(0, 3600).default(30),
  // Internal, for tests: the first retry delay of the job queue (webhook deliveries, pushes).
  JOB_RETRY_BASE_MS: integer(10, 3_600_000).default(10_000),
  // Internal, for tests: how long a client gets to send a request's headers (at most the request timeout, 30 s).
  HEADERS_TIMEOUT_MS: integer(1000, 30_000).default(15_000),
});

export type AppleSigning = {
  passTypeIdentifier: string;
  teamIdentifier: string;
  signerCertPem: string;
  signerKeyPem: string;
  signerKeyPassphrase?: string;
  wwdrCertPem: string;
};

export type Config = {
  port: number;
  /** Origin without a trailing slash, e.g. https://passes.example.com */
  publicBaseUrl: string;
  /** host[:port] of publicBaseUrl: the domain of every sign-in message. */
  domain: string;
  dataDir: string;
  databaseUrl?: string;
  databasePoolSize: number;
  databaseTimeoutMs: number;
  redisUrl?: string;
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  rateLimitPerMinute: number;
  /** Number of trusted proxies in front of the service; 0 ignores X-Forwarded-For. */
  trustProxyHops: number;
  nonceTtlSeconds: number;
  /** Unused, unexpired messages one public key may hold; past it, init answers 429. */
  pendingMessagesPerKey: number;
  /** Inits per second this instance issues to all clients together; 0: no budget. */
  initBudgetPerSecond: number;
  /** Open connections this instance accepts at once. */
  maxConnections: number;
  /** Open connections from one IP (an IPv6 /64); 0: no per-IP cap. Not applied behind TRUST_PROXY. */
  maxConnectionsPerIp: number;
  /** The HMAC key of download ids; unset: generated once into DATA_DIR/download-id.key. */
  downloadIdKey?: Buffer;
  chainId: string;
  statement: string;
  organizationName: string;
  passDescription: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Set when real Apple certificates are configured; otherwise a development chain is used. */
  apple?: AppleSigning;
  google?: { issuerId: string; clientEmail: string; privateKeyPem: string; tokenUri: string; apiUrl: string };
  /** Set from PASSKIT_TOKEN_KEY; otherwise a key is generated once in DATA_DIR (see lib/passes/authentication-token.ts). */
  passkitTokenKey?: Buffer;
  /** Wallets allowed to sign in as operators; empty: nobody. */
  operatorWallets: string[];
  /** Set when WEBHOOK_URL and WEBHOOK_SECRET are: where events go and the key that signs them. */
  webhook?: { url: string; secret: string; key: Buffer };
  /** Origin of the APNs server pass-update pushes go to. */
  apnsUrl: string;
  /** Devices registered for one pass at most; a new one past it replaces the oldest. */
  devicesPerPass: number;
  solanaRpcUrl?: string;
  /** The RPC's WebSocket endpoint: when set, token rules' holders are re-checked as their accounts change. */
  solanaWsUrl?: string;
  /** Who may claim; unset: anyone. */
  claimPolicy?: ClaimPolicy;
  /** How often passes are checked again against the policy; 0: never. */
  eligibilityRecheckSeconds: number;
  /** The budget of one eligibility check against the RPC, retries included. */
  solanaRpcTimeoutMs: number;
  /** The largest RPC answer read, in bytes. */
  solanaRpcMaxBytes: number;
  /** RPC requests per second, per instance, in any one-second window: every request waits for its turn. */
  solanaRpcRps: number;
  /** DAS requests per second, per instance, each also within solanaRpcRps; undefined: no bound of their own. */
  solanaDasRps?: number;
  /** Google Wallet API calls per second, per instance, paced evenly: every call waits for its turn. */
  googleWalletRps: number;
  /** How long a positive eligibility answer is reused; 0: never. */
  eligibilityCacheSeconds: number;
  /** The job queue's first retry delay (JOB_RETRY_BASE_MS, internal: tests shorten it). */
  jobRetryBaseMs: number;
  /** How long a client gets to send a request's headers (HEADERS_TIMEOUT_MS, internal: tests shorten it). */
  headersTimeoutMs: number;
};

type Env = Record<string, string | undefined>;

/** A copy of the process environment, for tools that pass it on (npm run doctor). */
export const processEnvironment = (): Env => ({ ...process.env });

/** Parses and validates the environment. Throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env = process.env): Config {
  // Empty strings count as unset, as most process managers write them for "no value".
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const issue = firstIssue(parsed.error);
    throw new ConfigError(String(issue.path[0] ?? 'environment'), issue.message);
  }
  const e = parsed.data;

  const base = parsePublicBaseUrl(e.PUBLIC_BASE_URL ?? `http://localhost:${e.PORT}`);

  return {
    port: e.PORT,
    publicBaseUrl: base.origin,
    domain: base.host,
    dataDir: path.resolve(e.DATA_DIR),
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseTimeoutMs: e.DATABASE_TIMEOUT_MS,
    redisUrl: e.REDIS_URL,
    redisKeyPrefix: e.REDIS_KEY_PREFIX,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    trustProxyHops: e.TRUST_PROXY,
    nonceTtlSeconds: e.NONCE_TTL_SECONDS,
    pendingMessagesPerKey: e.PENDING_MESSAGES_PER_KEY,
    // RATE_LIMIT_PER_MINUTE=0 is the one switch for benchmarks and trusted set-ups (contract).
    initBudgetPerSecond: e.RATE_LIMIT_PER_MINUTE === 0 ? 0 : e.INIT_BUDGET_PER_SECOND,
    maxConnections: e.MAX_CONNECTIONS,
    maxConnectionsPerIp: e.MAX_CONNECTIONS_PER_IP,
    downloadIdKey: e.DOWNLOAD_ID_KEY,
    chainId: e.SOLANA_CHAIN_ID,
    statement: e.CLAIM_STATEMENT,
    organizationName: e.PASS_ORGANIZATION_NAME,
    passDescription: e.PASS_DESCRIPTION,
    logLevel: e.LOG_LEVEL,
    apple: appleSigning(e),
    google: googleWallet(e),
    operatorWallets: e.OPERATOR_WALLETS ?? [],
    webhook: webhook(e),
    apnsUrl: e.APNS_URL,
    devicesPerPass: e.DEVICES_PER_PASS,
    passkitTokenKey: e.PASSKIT_TOKEN_KEY,
    solanaRpcUrl: e.SOLANA_RPC_URL,
    solanaWsUrl: solanaWsUrl(e),
    claimPolicy: claimPolicy(e),
    eligibilityRecheckSeconds: e.ELIGIBILITY_RECHECK_SECONDS,
    solanaRpcTimeoutMs: e.SOLANA_RPC_TIMEOUT_MS,
    solanaRpcMaxBytes: e.SOLANA_RPC_MAX_BYTES,
    solanaRpcRps: e.SOLANA_RPC_RPS,
    solanaDasRps: e.SOLANA_DAS_RPS,
    googleWalletRps: e.GOOGLE_WALLET_RPS,
    eligibilityCacheSeconds: e.ELIGIBILITY_CACHE_SECONDS,
    jobRetryBaseMs: e.JOB_RETRY_BASE_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
  };
}

function parsePublicBaseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError('PUBLIC_BASE_URL', 'must be an absolute URL such as https://passes.example.com');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new ConfigError('PUBLIC_BASE_URL', 'must be https:// unless its host is localhost or 127.0.0.1');
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username) {
    throw new ConfigError('PUBLIC_BASE_URL', 'must be an origin only (no path, query, or credentials)');
  }
  return url;
}

type ParsedEnv = z.infer<typeof envSchema>;

function appleSigning(e: ParsedEnv): AppleSigning | undefined {
  const required = ['APPLE_PASS_TYPE_ID', 'APPLE_TEAM_ID', 'APPLE_SIGNER_CERT', 'APPLE_SIGNER_KEY', 'APPLE_WWDR_CERT'] as const;
  const set = required.filter((name) => e[name] !== undefined);
  if (set.length === 0) {
    if (e.APPLE_SIGNER_KEY_PASSPHRASE !== undefined) {
      throw new ConfigError('APPLE_SIGNER_KEY_PASSPHRASE', 'is set but no Apple certificates are configured');
    }
    return undefined;
  }
  // Read in the order of `required`, so the first missing one is named.
  const value = (name: (typeof required)[number]): string => {
    const text = e[name];
    if (text === undefined) throw new ConfigError(name, `is required when ${set[0]} is set (configure all Apple signing variables, or none)`);
    return text;
  };
  return {
    passTypeIdentifier: value('APPLE_PASS_TYPE_ID'),
    teamIdentifier: value('APPLE_TEAM_ID'),
    signerCertPem: value('APPLE_SIGNER_CERT'),
    signerKeyPem: value('APPLE_SIGNER_KEY'),
    signerKeyPassphrase: e.APPLE_SIGNER_KEY_PASSPHRASE,
    wwdrCertPem: value('APPLE_WWDR_CERT'),
  };
}

function googleWallet(e: ParsedEnv): Config['google'] {
  if (!e.GOOGLE_WALLET_ISSUER_ID && !e.GOOGLE_SERVICE_ACCOUNT) return undefined;
  if (!e.GOOGLE_WALLET_ISSUER_ID) throw new ConfigError('GOOGLE_WALLET_ISSUER_ID', 'is required when GOOGLE_SERVICE_ACCOUNT is set');
  if (!e.GOOGLE_SERVICE_ACCOUNT) throw new ConfigError('GOOGLE_SERVICE_ACCOUNT', 'is required when GOOGLE_WALLET_ISSUER_ID is set');
  return {
    issuerId: e.GOOGLE_WALLET_ISSUER_ID,
    clientEmail: e.GOOGLE_SERVICE_ACCOUNT.client_email,
    privateKeyPem: e.GOOGLE_SERVICE_ACCOUNT.private_key,
    tokenUri: e.GOOGLE_SERVICE_ACCOUNT.token_uri ?? DEFAULT_GOOGLE_TOKEN_URI,
    apiUrl: e.GOOGLE_WALLET_API_URL,
  };
}

function webhook(e: ParsedEnv): Config['webhook'] {
  if (!e.WEBHOOK_URL && !e.WEBHOOK_SECRET) return undefined;
  if (!e.WEBHOOK_URL) throw new ConfigError('WEBHOOK_URL', 'is required when WEBHOOK_SECRET is set (set both, or neither)');
  if (!e.WEBHOOK_SECRET) throw new ConfigError('WEBHOOK_SECRET', 'is required when WEBHOOK_URL is set (set both, or neither)');
  return { url: e.WEBHOOK_URL, secret: e.WEBHOOK_SECRET.text, key: e.WEBHOOK_SECRET.key };
}

/** SOLANA_WS_URL only says what changed: the holders are then read through SOLANA_RPC_URL. */
function solanaWsUrl(e: ParsedEnv): string | undefined {
  if (e.SOLANA_WS_URL && !e.SOLANA_RPC_URL) throw new ConfigError('SOLANA_RPC_URL', 'is required when SOLANA_WS_URL is set: holders are re-checked through it');
  return e.SOLANA_WS_URL;
}

/** The policy, relative allowFile paths resolved from the working directory or the policy file. */
function claimPolicy(e: ParsedEnv): ClaimPolicy | undefined {
  if (e.CLAIM_POLICY === undefined) return undefined;
  const policy = parseClaimPolicy(e.CLAIM_POLICY);
  if (needsRpc(policy) && !e.SOLANA_RPC_URL) {
    throw new ConfigError('SOLANA_RPC_URL', 'is required: CLAIM_POLICY has token, collection or group rules, which read the chain');
  }
  return policy;
}
