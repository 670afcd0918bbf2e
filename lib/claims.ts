// The claim use case: issue a sign-in message, redeem a signed one for a pass, serve the pass
// file, check a pass's serial, and give its Google Wallet link. Routes call these; each returns
// a value or throws an AppError with a code.
import { createHash, randomUUID } from 'node:crypto';
import type { ClaimBody } from './api/endpoints/claims.schemas';
import type { PassCheck } from './api/endpoints/passes.schemas';
import { macMatches } from './check-in/barcode';
import type { Clock } from './clock';
import type { Config } from './config';
import { findPass, findPassOfWallet, setDownloadIdHash } from './db/passes';
import { findProgram, type Program } from './db/programs';
import type { Store } from './db/store';
import { requireEligible } from './eligibility/gate';
import { AppError } from './errors';
import { type Logger, redact } from './log';
import { downloadIdOf } from './passes/download-id';
import type { GoogleWallet } from './passes/google-wallet';
import { asDownloadId, asSerialNumber, type DownloadId } from './passes/ids';
import { currentPassFile, googleSaveLink, type Living } from './passes/living';
import type { PassIssuer } from './passes/pkpass';
import { openProgram, type ProgramDirectory, soldOut } from './programs/programs';
import { DEFAULT_PROGRAM } from './programs/schema';
import type { InitBudget } from './rate-limit';
import { buildSignInFields, claimedFieldsOf, refusalErrors, refusalOf, renderSignInMessage, type SignInFields, verifySignInSignature } from './siws';
import { isWalletType, type WalletType } from './wallet-types';
import { type EventPass, enqueueWebhookEvent, scannedEventKey, type WebhookEventType, webhookEventData, webhookEventJobs } from './webhooks';

/**
 * SHA-256 of a secret (nonce, pass id): what the database stores as the lookup key. Threat: an
 * index lookup compares bytes with an early exit; hashing first means its timing reveals nothing
 * about the secret an attacker is guessing.
 */
function lookupHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export type IssuedMessage = SignInFields & { message: string };

/** What issuing a message needs. */
export type IssueDeps = {
  config: Pick<Config, 'domain' | 'publicBaseUrl' | 'statement' | 'chainId' | 'nonceTtlSeconds'>;
  store: Pick<Store, 'insertMessage' | 'sql'>;
  initBudget: InitBudget;
  clock: Clock;
  log: Logger;
  programs: ProgramDirectory;
};

/**
 * The Resources line of a program's messages: its claim page. The default program's messages have
 * none, so their text is what it always was. A message names one program, and claims only it.
 */
export function programResource(config: Pick<Config, 'publicBaseUrl'>, slug: string): string[] {
  return slug === DEFAULT_PROGRAM ? [] : [`${config.publicBaseUrl}/p/${slug}`];
}

/**
 * The program, if `publicKey` may claim from it now. A program closed, out of its window or sold
 * out issues no new pass, but a wallet that holds one of its passes still gets its link again (a
 * lost phone the day of the event): the refusal stands only for a wallet without one.
 */
async function programOpenTo(
  services: { programs: ProgramDirectory; clock: Clock; store: Pick<Store, 'sql'> },
  slug: string,
  publicKey: string,
): Promise<Program> {
  try {
    return await openProgram(services, slug);
  } catch (error) {
    if (!(error instanceof AppError) || (error.code !== 'program_closed' && error.code !== 'sold_out')) throw error;
    if (await findPassOfWallet(services.store.sql, slug, publicKey)) {
      const program = await services.programs.find(slug);
      if (program) return program;
    }
    throw error;
  }
}

/** Whether the program's policy lets `publicKey` claim (not_eligible or service_unavailable otherwise). */
async function requireEligibleFor(services: { programs: ProgramDirectory; log: Logger }, program: Program, publicKey: string): Promise<void> {
  const eligibility = services.programs.checkerOf(program);
  if (eligibility) await requireEligible({ eligibility, log: services.log }, publicKey);
}

/** Takes one message from this instance's init budget, or refuses with rate_limited. */
export async function spendInitBudget(initBudget: InitBudget): Promise<void> {
  const budget = await initBudget.consume();
  if (!budget.allowed) {
    throw new AppError('rate_limited', `This service is issuing as many messages as it can; retry in ${budget.retryAfterSeconds} seconds.`, {
      retryAfterSeconds: budget.retryAfterSeconds,
    });
  }
}

export async function issueMessage(services: IssueDeps, publicKey: string, slug: string = DEFAULT_PROGRAM): Promise<IssuedMessage> {
  const { config, store } = services;
  // Before anything is spent or stored: a program that takes no claims now gives nothing to sign,
  // and neither does one whose policy the wallet does not meet.
  const program = await programOpenTo(services, slug, publicKey);
  await spendInitBudget(services.initBudget);
  await requireEligibleFor(services, program, publicKey);
  const fields = buildSignInFields(
    {
      domain: config.domain,
      uri: config.publicBaseUrl,
      statement: config.statement,
      chainId: config.chainId,
      ttlSeconds: config.nonceTtlSeconds,
      resources: programResource(config, program.slug),
    },
    publicKey,
    new Date(services.clock.now()),
  );
  const message = renderSignInMessage(fields);
  await store.insertMessage({
    nonceHash: lookupHash(fields.nonce),
    publicKey,
    purpose: 'claim',
    message,
    issuedAt: new Date(fields.issuedAt),
    expiresAt: new Date(fields.expirationTime),
  });
  return { ...fields, message };
}

export type ClaimResult = { created: boolean; downloadUrl: string };

/** What a claim needs. */
export type ClaimDeps = {
  log: Logger;
  programs: ProgramDirectory;
  config: Pick<Config, 'webhook' | 'publicBaseUrl'>;
  store: Pick<Store, 'findMessage' | 'redeemMessage' | 'sql'>;
  /** The HMAC key download ids are derived under (lib/passes/download-id.ts). */
  downloadIdKey: Buffer;
  clock: Clock;
};

/**
 * Redeems a signed message for the wallet's pass. Only a holder of the key learns whether a
 * message was already used or has expired: those answers come after the signature has verified.
 *
 * The common case, a wallet that signed exactly the text it was given, takes one statement: the
 * signature is verified over the submitted text, and the statement uses the message only if the
 * stored text is that same text. Anything else (a signIn-built text, a replay, a bad signature)
 * goes the full way below, whose checks give every answer in the documented order.
 */
export async function claimWalletPass(services: ClaimDeps, claim: ClaimBody): Promise<ClaimResult> {
  const claimed = claimedFieldsOf(claim.message);
  if (!claimed) throw notIssued();
  const slug = claim.program ?? DEFAULT_PROGRAM;
  // A message names its program (Resources): one issued for another program never claims this one.
  if (JSON.stringify(claimed.resources) !== JSON.stringify(programResource(services.config, slug))) throw notIssued();
  const program = await programOpenTo(services, slug, claim.publicKey);
  const redemption = { nonceHash: lookupHash(claimed.nonce), publicKey: claim.publicKey, walletType: claim.walletType, program: program.slug };

  // Verified once: the fast path needs the answer first, the full path reports it in its turn.
  const signed = verifySignInSignature(claim);
  // Checked again once the key holder is known, before the message is used or a pass written:
  // holdings may have changed since init. Without a policy this is one property read.
  if (signed) await requireEligibleFor(services, program, claim.publicKey);
  if (signed) {
    const outcome = await redeem(services, { ...redemption, exactText: claim.message });
    if (outcome) return outcome;
  }

  const issued = await services.store.findMessage(redemption.nonceHash);
  const refusal = refusalOf(claim, issued, new Date(services.clock.now()), signed);
  if (refusal) throw refused[refusal]();

  const outcome = await redeem(services, redemption);
  if (outcome) return outcome;
  // Used or expired between the read above and the redemption: read again to say which.
  const again = await services.store.findMessage(redemption.nonceHash);
  if (!again) throw notIssued();
  throw again.usedAt ? refused.message_already_used() : refused.message_expired();
}

/** Uses the message and gives its wallet its pass; undefined when there was nothing to redeem. */
async function redeem(
  services: ClaimDeps,
  params: { nonceHash: string; publicKey: string; walletType: WalletType; program: string; exactText?: string },
): Promise<ClaimResult | undefined> {
  const now = new Date(services.clock.now());
  const serialNumber = asSerialNumber(randomUUID());
  // pass.created is stored with the pass, in its statement: a crash cannot keep one without the
  // other. With WEBHOOK_URL unset there is no job, and the statement inserts none.
  const created = webhookEventData({ serialNumber, publicKey: params.publicKey, program: params.program, walletType: params.walletType });
  const onCreated = webhookEventJobs(services.config, 'pass.created', created, now);
  const outcome = await services.store.redeemMessage({
    nonceHash: params.nonceHash,
    publicKey: params.publicKey,
    exactText: params.exactText,
    now,
    newPass: {
      serialNumber,
      downloadIdHash: lookupHash(downloadIdOf(services.downloadIdKey, serialNumber)),
      publicKey: params.publicKey,
      program: params.program,
      walletType: params.walletType,
      claimedAt: now,
    },
    onCreated,
  });
  if (outcome.kind === 'not_redeemed') return undefined;
  if (outcome.kind === 'created' || outcome.kind === 'sold_out') services.programs.issuedOrSoldOut(params.program);
  if (outcome.kind === 'sold_out') {
    const program = await findProgram(services.store.sql, params.program);
    throw soldOut(program ?? { name: params.program, supply: null });
  }
  // The same id as at creation: derived again from the serial, never read back from storage.
  const downloadId = downloadIdOf(services.downloadIdKey, outcome.pass.serialNumber);
  if (outcome.kind === 'existing' && lookupHash(downloadId) !== outcome.pass.downloadIdHash) {
    // Claimed before ids were derived, or under another key: its wallet, just proven, gets a
    // working link (the old one stops working).
    await setDownloadIdHash(services.store.sql, outcome.pass.serialNumber, lookupHash(downloadId));
    services.log.warn(
      { event: 'download_id_rekeyed', serial: outcome.pass.serialNumber },
      "a returning wallet's pass had a download id not derived under this DOWNLOAD_ID_KEY: it now has a new link (do all instances share one DOWNLOAD_ID_KEY?)",
    );
  }
  services.log.info(
    {
      event: 'pass_claimed',
      outcome: outcome.kind,
      publicKey: params.publicKey,
      walletType: outcome.pass.walletType,
      serial: outcome.pass.serialNumber,
      pass: redact(downloadId),
    },
    outcome.kind === 'created' ? 'pass created' : 'returning wallet',
  );
  return { created: outcome.kind === 'created', downloadUrl: downloadUrl(services, downloadId) };
}

const refused = refusalErrors({
  notIssued: 'This message was not issued by this service for this public key, or it was altered.',
  usedTo: 'claim',
  initPath: '/api/v1/claim/init',
});
const notIssued = refused.message_not_issued;

export function downloadUrl(services: { config: Pick<Config, 'publicBaseUrl'> }, downloadId: DownloadId): string {
  return `${services.config.publicBaseUrl}/download?pass=${downloadId}`;
}

export type PassFile = { pkpass: Buffer; etag: string; filename: string };

const passNotFound = () => new AppError('pass_not_found', 'No pass has this id.');

/**
 * The current .pkpass of a download id: the same bytes on every download until the pass changes
 * (lib/passes/living.ts).
 */
export async function getPassFile(
  services: { living: Pick<Living, 'tokenKey' | 'barcodeKey' | 'files'>; issuer: PassIssuer; store: Pick<Store, 'sql'> },
  passId: string,
): Promise<PassFile & { lastModified: Date }> {
  const pass = await findPass(services.store.sql, { downloadIdHash: lookupHash(asDownloadId(passId)) });
  if (!pass) throw passNotFound();
  return currentPassFile(services, pass);
}

/**
 * The "Save to Google Wallet" link of a download id. Keyed by the secret download id, never by
 * the public serial: whoever has the link can save the pass.
 */
export async function getGoogleSaveUrl(
  services: { google?: GoogleWallet; living: Pick<Living, 'tokenKey' | 'barcodeKey' | 'googleApi'>; log: Logger; store: Pick<Store, 'sql'> },
  passId: string,
): Promise<string> {
  if (!services.google) {
    throw new AppError('google_wallet_not_configured', 'This service has no Google Wallet issuer configured; only the Apple Wallet pass is offered.');
  }
  const pass = await findPass(services.store.sql, { downloadIdHash: lookupHash(asDownloadId(passId)) });
  if (!pass) throw passNotFound();
  return googleSaveLink(services, pass);
}

/** The scanner check: what this service issued under a public serial number. */
export async function verifyPass(
  services: {
    config: Pick<Config, 'webhook' | 'organizationName'>;
    store: Pick<Store, 'sql' | 'jobs'>;
    log: Logger;
    clock: Clock;
    living: Pick<Living, 'barcodeKey'>;
  },
  serial: string,
  code?: string,
): Promise<PassCheck> {
  const notIssued = () => new AppError('pass_not_found', 'This service issued no pass with this serial number.');
  // A barcode's check-in code, when the scan carried one, must be the serial's: an altered one is no pass of ours.
  if (code !== undefined && !macMatches(services.living.barcodeKey, asSerialNumber(serial), code)) throw notIssued();
  const pass = await findPass(services.store.sql, { serialNumber: asSerialNumber(serial) });
  if (!pass) throw notIssued();
  if (services.config.webhook) {
    const now = services.clock.now();
    await announce(services, 'pass.scanned', pass, new Date(now), scannedEventKey(pass.serialNumber, now));
  }
  return {
    genuine: true,
    status: pass.status === 'voided' ? 'voided' : 'active',
    voidReason: pass.status === 'voided' ? (pass.voidReason ?? null) : null,
    expirationDate: pass.expirationDate?.toISOString() ?? null,
    expired: pass.expirationDate !== null && pass.expirationDate.getTime() <= Date.now(),
    serialNumber: pass.serialNumber,
    publicKey: pass.publicKey,
    program: pass.program,
    walletType: isWalletType(pass.walletType) ? pass.walletType : 'Generic',
    claimedAt: pass.claimedAt.toISOString(),
    issuer: services.config.organizationName,
  };
}

/**
 * Enqueues a webhook event after the change that caused it. A failure to enqueue is logged, not
 * answered: the pass exists (or was checked) either way, and the client must not retry for it.
 */
async function announce(
  services: { config: Pick<Config, 'webhook'>; store: Pick<Store, 'jobs'>; log: Logger },
  type: WebhookEventType,
  pass: EventPass,
  at: Date,
  dedupeKey?: string,
): Promise<void> {
  try {
    await enqueueWebhookEvent(services, type, webhookEventData(pass), at, dedupeKey);
  } catch (error) {
    services.log.warn({ event: 'webhook_enqueue_failed', type, serial: pass.serialNumber, err: (error as Error).message }, 'webhook event not enqueued');
  }
}
