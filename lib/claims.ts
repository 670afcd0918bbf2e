// The claim use case: issue a sign-in message, redeem a signed one for a pass, serve the pass
// file, check a pass's serial, and give its Google Wallet link. Routes call these; each returns
// a value or throws an AppError with a code.
import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { parseSignInMessageText } from '@solana/wallet-standard-util';
import { AppError } from './errors';
import { redact } from './log';
import { googleSaveUrl } from './passes/google-wallet';
import { buildPkpass, passFilename } from './passes/pkpass';
import { decodeBase58, type ClaimBody, type PassCheck } from './schemas';
import type { Services } from './services';
import { verifyWalletSignature } from './signature';
import { buildSignInFields, isIssuedMessage, nonceOf, renderSignInMessage, type SignInFields } from './siws';
import { isWalletType, type WalletType } from './wallet-types';
import { notifyJobsEnqueued } from './queue';
import { enqueueWebhookEvent, webhookEventJob, type WebhookEventData, type WebhookEventType } from './webhooks';

/**
 * SHA-256 of a secret (nonce, pass id): what the database stores as the lookup key. Threat: an
 * index lookup compares bytes with an early exit; hashing first means its timing reveals nothing
 * about the secret an attacker is guessing.
 */
function lookupHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export type IssuedMessage = SignInFields & { message: string };

export async function issueMessage(services: Services, publicKey: string): Promise<IssuedMessage> {
  const { config, store } = services;
  const fields = buildSignInFields(
    {
      domain: config.domain,
      uri: config.publicBaseUrl,
      statement: config.statement,
      chainId: config.chainId,
      ttlSeconds: config.nonceTtlSeconds,
    },
    publicKey,
  );
  const message = renderSignInMessage(fields);
  await store.insertMessage({
    nonceHash: lookupHash(fields.nonce),
    publicKey,
    message,
    issuedAt: new Date(fields.issuedAt),
    expiresAt: new Date(fields.expirationTime),
  });
  return { ...fields, message };
}

export type ClaimResult = { created: boolean; downloadUrl: string };

/**
 * Redeems a signed message for the wallet's pass. Only a holder of the key learns whether a
 * message was already used or has expired: those answers come after the signature has verified.
 *
 * The common case, a wallet that signed exactly the text it was given, takes one statement: the
 * signature is verified over the submitted text, and the statement uses the message only if the
 * stored text is that same text. Anything else (a signIn-built text, a replay, a bad signature)
 * goes the full way below, whose checks give every answer in the documented order.
 */
export async function claimWalletPass(services: Services, claim: ClaimBody): Promise<ClaimResult> {
  const nonce = nonceOf(claim.message);
  if (!nonce) throw notIssued();
  const signature = decodeBase58(claim.signature)!;
  const publicKey = decodeBase58(claim.publicKey)!;
  const redemption = { nonceHash: lookupHash(nonce), publicKey: claim.publicKey, walletType: claim.walletType };

  // Verified once: the fast path needs the answer first, the full path reports it in its turn.
  const signed = verifyWalletSignature(claim.message, signature, publicKey, claim.publicKey) !== null;
  if (signed) {
    const outcome = await redeem(services, { ...redemption, exactText: claim.message });
    if (outcome) return outcome;
  }

  const issued = await services.store.findMessage(redemption.nonceHash);
  if (!issued || !sameText(issued.publicKey, claim.publicKey)) throw notIssued();
  const issuedFields = parseSignInMessageText(issued.message) as SignInFields | null;
  if (!issuedFields || !isIssuedMessage(claim.message, issuedFields)) throw notIssued();
  if (!signed) {
    throw new AppError('signature_invalid', 'The signature does not verify for this message and public key.');
  }
  const now = new Date();
  if (issued.usedAt) throw alreadyUsed();
  if (issued.expiresAt <= now) throw expired();

  const outcome = await redeem(services, redemption);
  if (outcome) return outcome;
  // Used or expired between the read above and the redemption: read again to say which.
  const again = await services.store.findMessage(redemption.nonceHash);
  if (!again) throw notIssued();
  throw again.usedAt ? alreadyUsed() : expired();
}

/** Uses the message and gives its wallet its pass; undefined when there was nothing to redeem. */
async function redeem(
  services: Services,
  params: { nonceHash: string; publicKey: string; walletType: WalletType; exactText?: string },
): Promise<ClaimResult | undefined> {
  const now = new Date();
  const downloadId = randomBytes(32).toString('base64url');
  const serialNumber = randomUUID();
  // pass.created is stored with the pass, in its statement: a crash cannot keep one without the
  // other. With WEBHOOK_URL unset there is no job, and the statement inserts none.
  const onCreated = webhookEventJob(services.config, 'pass.created', { serialNumber, publicKey: params.publicKey, walletType: params.walletType }, now);
  const outcome = await services.store.redeemMessage({
    nonceHash: params.nonceHash,
    publicKey: params.publicKey,
    exactText: params.exactText,
    now,
    newPass: {
      serialNumber,
      downloadId,
      downloadIdHash: lookupHash(downloadId),
      publicKey: params.publicKey,
      walletType: params.walletType,
      claimedAt: now,
    },
    onCreated,
  });
  if (outcome.kind === 'not_redeemed') return undefined;
  if (outcome.kind === 'created' && onCreated) notifyJobsEnqueued();
  services.log.info(
    { event: 'pass_claimed', outcome: outcome.kind, publicKey: params.publicKey, walletType: outcome.pass.walletType, serial: outcome.pass.serialNumber, pass: redact(outcome.pass.downloadId) },
    outcome.kind === 'created' ? 'pass created' : 'returning wallet',
  );
  return { created: outcome.kind === 'created', downloadUrl: downloadUrl(services, outcome.pass.downloadId) };
}

const notIssued = () => new AppError('message_not_issued', 'This message was not issued by this service for this public key, or it was altered.');
const alreadyUsed = () => new AppError('message_already_used', 'This message was already used to claim. Ask /api/v1/claim/init for a new one.');
const expired = () => new AppError('message_expired', 'This message has expired. Ask /api/v1/claim/init for a new one.');

function sameText(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)];
  return x.length === y.length && timingSafeEqual(x, y);
}

export function downloadUrl(services: Services, downloadId: string): string {
  return `${services.config.publicBaseUrl}/download?pass=${downloadId}`;
}

export type PassFile = { pkpass: Buffer; etag: string; filename: string };

const passNotFound = () => new AppError('pass_not_found', 'No pass has this id.');

/** The pass of a secret download id, or pass_not_found. */
async function passByDownloadId(services: Services, passId: string) {
  const pass = await services.store.findPassByDownloadIdHash(lookupHash(passId));
  if (!pass) throw passNotFound();
  const walletType: WalletType = isWalletType(pass.walletType) ? pass.walletType : 'Generic';
  return { ...pass, walletType };
}

/** The .pkpass of a download id: built on first download, then served byte-identical from storage. */
export async function getPassFile(services: Services, passId: string): Promise<PassFile> {
  const pass = await passByDownloadId(services, passId);
  const filename = passFilename(pass.walletType);
  if (pass.pkpass && pass.pkpassEtag) return { pkpass: pass.pkpass, etag: pass.pkpassEtag, filename };

  // Signed now; the stored bytes keep this signing time for every later download.
  const built = await buildPkpass(pass, services.issuer);
  const etag = `"${createHash('sha256').update(built).digest('base64url').slice(0, 32)}"`;
  const stored = await services.store.savePassFile(pass.serialNumber, built, etag);
  return { ...stored, filename };
}

/**
 * The "Save to Google Wallet" link of a download id. Keyed by the secret download id, never by
 * the public serial: whoever has the link can save the pass.
 */
export async function getGoogleSaveUrl(services: Services, passId: string): Promise<string> {
  if (!services.google) {
    throw new AppError('google_wallet_not_configured', 'This service has no Google Wallet issuer configured; only the Apple Wallet pass is offered.');
  }
  const pass = await passByDownloadId(services, passId);
  return googleSaveUrl(pass, services.google);
}

/** The scanner check: what this service issued under a public serial number. */
export async function verifyPass(services: Services, serial: string): Promise<PassCheck> {
  const pass = await services.store.findPassBySerial(serial);
  if (!pass) throw new AppError('pass_not_found', 'This service issued no pass with this serial number.');
  if (services.config.webhook) await announce(services, 'pass.scanned', pass);
  return {
    genuine: true,
    serialNumber: pass.serialNumber,
    publicKey: pass.publicKey,
    walletType: isWalletType(pass.walletType) ? pass.walletType : 'Generic',
    claimedAt: pass.claimedAt.toISOString(),
    issuer: services.config.organizationName,
  };
}

/**
 * Enqueues a webhook event after the change that caused it. A failure to enqueue is logged, not
 * answered: the pass exists (or was checked) either way, and the client must not retry for it.
 */
async function announce(services: Services, type: WebhookEventType, pass: WebhookEventData): Promise<void> {
  try {
    await enqueueWebhookEvent(services, type, { serialNumber: pass.serialNumber, publicKey: pass.publicKey, walletType: pass.walletType });
  } catch (error) {
    services.log.warn({ event: 'webhook_enqueue_failed', type, serial: pass.serialNumber, err: (error as Error).message }, 'webhook event not enqueued');
  }
}
