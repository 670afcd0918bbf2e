// The process-wide services (configuration, storage, rate limiter, pass signing, Google Wallet,
// logger), created once at start from a validated configuration and passed to every use case.
import { barcodeKeyOf } from './check-in/barcode';
import { type Clock, systemClock } from './clock';
import type { Config } from './config';
import { openDatabase } from './db/client';
import { Store } from './db/store';
import { upkeep } from './db/upkeep';
import { createChainReader } from './eligibility/chain';
import { EligibilityChecker } from './eligibility/checker';
import { startRechecks } from './eligibility/recheck';
import { NO_SUBSCRIPTIONS, type Subscriptions, startSubscriptions } from './eligibility/subscriptions';
import { errorChain } from './errors';
import { createLogger, type Logger } from './log';
import { loadSigningMaterial } from './passes/certificates';
import { changeTasks } from './passes/change-jobs';
import { loadDownloadIdKey } from './passes/download-id';
import { googleMessageTasks } from './passes/google-messages';
import { createGoogleWallet, type GoogleWallet } from './passes/google-wallet';
import { createLiving, type Living } from './passes/living';
import { createManifestSigner } from './passes/manifest-signer';
import { type PassIssuer, passIssuer } from './passes/pkpass';
import { programTasks } from './programs/changes';
import { ProgramDirectory } from './programs/programs';
import { DEFAULT_WORKER_OPTIONS, JobLanes } from './queue/worker';
import { createInitBudget, createRateLimiter, type InitBudget, type RateLimiter } from './rate-limit';
import { BATCHES_IN_FLIGHT, updateTasks } from './updates/fan-out';
import { webhookTasks } from './webhooks';

export type Services = {
  config: Config;
  clock: Clock;
  log: Logger;
  store: Store;
  limiter: RateLimiter;
  /** The HMAC key download ids are derived under (lib/passes/download-id.ts). */
  downloadIdKey: Buffer;
  /** Inits per second from all clients together (INIT_BUDGET_PER_SECOND). */
  initBudget: InitBudget;
  issuer: PassIssuer;
  /** Set when GOOGLE_WALLET_ISSUER_ID and GOOGLE_SERVICE_ACCOUNT are. */
  google?: GoogleWallet;
  /** Set when CLAIM_POLICY is: who may claim the default program. */
  eligibility?: EligibilityChecker;
  /** The programs claims read, and each one's policy checker (lib/programs/programs.ts). */
  programs: ProgramDirectory;
  /** The job queue's workers on this instance (lib/queue), one per lane: pass changes and pushes; updates; webhook deliveries. */
  jobs: JobLanes;
  /** Living passes: device registrations, rebuilt files, APNs pushes, the Google Wallet API (lib/passes/living.ts). */
  living: Living;
  /** Token accounts watched as they change (SOLANA_WS_URL), by the one instance holding the lease (lib/eligibility/subscriptions.ts). */
  subscriptions: Subscriptions;
  close(): Promise<void>;
};

/** How long an expired message is kept so a late claim hears "expired" rather than "not issued". */
const EXPIRED_GRACE_MS = 15 * 60 * 1000;
const PURGE_INTERVAL_MS = 60 * 1000;

/**
 * An error and its causes, as "code: message ← code: message", without stacks. Drizzle's
 * "Failed query" wrapper is left out: its message carries the query's parameters.
 */
function describeError(error: unknown): string {
  const parts = [...errorChain(error)]
    .filter(({ message }) => !message.startsWith('Failed query'))
    .map(({ code, message }) => [code, message].filter((part) => typeof part === 'string' && part).join(': '));
  return parts.filter(Boolean).join(' ← ') || 'no answer in time';
}

export type ServicesOptions = {
  /** The time messages expire by: the system's unless a test moves its own. */
  clock?: Clock;
};

export async function createServices(config: Config, { clock = systemClock }: ServicesOptions = {}): Promise<Services> {
  const log = createLogger(config.logLevel);
  const signing = loadSigningMaterial(config.apple, config.dataDir);
  const signer = await createManifestSigner(signing);
  const google = await createGoogleWallet(config);
  const database = await openDatabase({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    timeoutMs: config.databaseTimeoutMs,
  });
  const store = new Store(
    database,
    config.databaseTimeoutMs,
    {
      onDown: (error) => log.error({ event: 'database_unavailable', err: describeError(error) }, 'database unreachable: answering 503 until it is back'),
      onUp: () => log.info({ event: 'database_recovered' }, 'database reachable again'),
      onBusy: (error) => log.warn({ event: 'database_busy', err: describeError(error) }, 'database could not do the work now: answered 503'),
    },
    { pendingMessagesPerKey: config.pendingMessagesPerKey },
    clock,
  );
  const downloadIds = loadDownloadIdKey(config.downloadIdKey, config.dataDir);
  if (downloadIds.source === 'file' && config.databaseUrl) {
    log.warn(
      { event: 'download_id_key_local' },
      `DOWNLOAD_ID_KEY is not set: download ids are derived under the key in ${config.dataDir}; every instance sharing this database must use one key (set DOWNLOAD_ID_KEY)`,
    );
  }
  const living = createLiving(config, signing, google, barcodeKeyOf(downloadIds.key));
  const limiter = createRateLimiter({ perMinute: config.rateLimitPerMinute, redisUrl: config.redisUrl, redisKeyPrefix: config.redisKeyPrefix }, log);

  // Expired messages are deleted on a timer so an init flood cannot grow the database for ever.
  // On the embedded database, which has no autovacuum, the same timer does its work (upkeep.ts).
  const purge = async () => {
    try {
      const deleted = await store.purgeMessagesExpiredBefore(new Date(clock.now() - EXPIRED_GRACE_MS));
      if (deleted > 0) log.info({ event: 'messages_purged', deleted }, 'purged expired sign-in messages');
    } catch (error) {
      log.warn({ event: 'purge_failed', err: (error as Error).message }, 'could not purge expired messages');
    }
    if (store.kind !== 'pglite') return;
    try {
      const done = await upkeep(store.sql);
      if (done.analyzed.length > 0 || done.vacuumed.length > 0) log.info({ event: 'database_upkeep', ...done }, 'vacuumed and analyzed the embedded database');
    } catch (error) {
      log.warn({ event: 'upkeep_failed', err: (error as Error).message }, 'could not vacuum or analyze the embedded database');
    }
  };
  const purgeTimer = setInterval(purge, PURGE_INTERVAL_MS);
  purgeTimer.unref();
  void purge();

  if (signing.development) {
    log.warn({ event: 'development_signing' }, 'No Apple certificates configured: passes are signed by a development chain and will not install on a phone');
  }

  const chain = config.solanaRpcUrl
    ? createChainReader(config.solanaRpcUrl, { maxBytes: config.solanaRpcMaxBytes, rps: config.solanaRpcRps, dasRps: config.solanaDasRps, log })
    : undefined;
  const eligibility = config.claimPolicy
    ? new EligibilityChecker(config.claimPolicy, chain, { cacheSeconds: config.eligibilityCacheSeconds, timeoutMs: config.solanaRpcTimeoutMs })
    : undefined;

  // The job kinds this instance runs, each handler given what it uses, in three lanes: pass changes
  // and their pushes, and updates, never queue behind webhook deliveries (an unauthenticated scan makes one).
  const jobs = new JobLanes({
    lanes: [
      {
        handlers: { ...changeTasks({ config, store, living }), ...programTasks({ store }), ...googleMessageTasks({ store, living, clock, log }) },
        concurrency: DEFAULT_WORKER_OPTIONS.concurrency,
      },
      // Updates' batches (lib/updates): pushes too, in a lane of their own so that a pass's own
      // pushes never wait behind a program-wide update; its concurrency bounds the batches in flight.
      { handlers: updateTasks({ config, store, living }), concurrency: BATCHES_IN_FLIGHT },
      { handlers: webhookTasks({ config }), concurrency: DEFAULT_WORKER_OPTIONS.concurrency },
    ],
    jobs: store.jobs,
    log,
    options: { ...DEFAULT_WORKER_OPTIONS, retryBaseMs: config.jobRetryBaseMs },
  });

  const services: Services = {
    config,
    clock,
    log,
    store,
    limiter,
    downloadIdKey: downloadIds.key,
    initBudget: createInitBudget(config.initBudgetPerSecond),
    issuer: passIssuer(config, signing, signer),
    google,
    eligibility,
    programs: new ProgramDirectory(store, {
      defaultChecker: () => services.eligibility,
      chain,
      cacheSeconds: config.eligibilityCacheSeconds,
      timeoutMs: config.solanaRpcTimeoutMs,
    }),
    jobs,
    living,
    subscriptions: NO_SUBSCRIPTIONS,
    async close() {
      clearInterval(purgeTimer);
      await services.subscriptions.stop();
      await stopRechecks();
      // First, so no job starts against a closing store; jobs under way finish or are handed back.
      await jobs.stop();
      living.close();
      await limiter.close();
      await store.close();
    },
  };
  jobs.start();
  const stopRechecks = startRechecks(services);
  services.subscriptions = startSubscriptions(services);
  return services;
}
