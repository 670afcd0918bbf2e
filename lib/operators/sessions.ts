// Operator sign-in: the claim's Sign In With Solana flow (lib/siws.ts) on its own paths, for a
// session instead of a pass. The two never mix: an operator message says in its statement what it
// is for, is stored with purpose 'operator', and under a nonce hash derived differently from a
// claim's, so the claim's lookup (sha256(nonce)) cannot find it and this one
// (sha256('operator-session:' + nonce)) cannot find a claim's message.
import { createHash } from 'node:crypto';
import { type IssuedMessage, spendInitBudget } from '../claims';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { findOperatorMessage } from '../db/messages';
import { openSession, purgeEndedSessions, revokeSession } from '../db/sessions';
import type { Store } from '../db/store';
import { AppError } from '../errors';
import type { Logger } from '../log';
import type { InitBudget } from '../rate-limit';
import { buildSignInFields, nonceOf, refusalErrors, refusalOf, renderSignInMessage } from '../siws';
import { newToken, type Operator, SESSION_TOKEN_PREFIX, tokenHash } from './auth';

/** How long a session lasts: a working day. Sign in again after it. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

/** The statement of every operator message: what signing it does, and what it does not. */
export const OPERATOR_STATEMENT = 'Sign in as an operator of this wallet pass service. This opens an operator session; it claims no pass.';

/** What operator sign-in needs. */
export type SessionDeps = {
  config: Pick<Config, 'domain' | 'publicBaseUrl' | 'chainId' | 'nonceTtlSeconds' | 'operatorWallets'>;
  store: Pick<Store, 'sql' | 'insertMessage'>;
  log: Logger;
  initBudget: InitBudget;
  clock: Clock;
};

const operatorNonceHash = (nonce: string) => createHash('sha256').update(`operator-session:${nonce}`).digest('hex');

/**
 * A sign-in message for an operator session: the claim's init answer, with its own statement.
 * Anyone may ask for one, so it is bounded as a claim's is: by this instance's init budget, and
 * by the per-key cap on pending messages, which counts a key's messages of both purposes.
 */
export async function issueOperatorMessage(services: SessionDeps, publicKey: string): Promise<IssuedMessage> {
  const { config } = services;
  await spendInitBudget(services.initBudget);
  const fields = buildSignInFields(
    { domain: config.domain, uri: config.publicBaseUrl, statement: OPERATOR_STATEMENT, chainId: config.chainId, ttlSeconds: config.nonceTtlSeconds },
    publicKey,
    new Date(services.clock.now()),
  );
  const message = renderSignInMessage(fields);
  await services.store.insertMessage({
    nonceHash: operatorNonceHash(fields.nonce),
    publicKey,
    purpose: 'operator',
    message,
    issuedAt: new Date(fields.issuedAt),
    expiresAt: new Date(fields.expirationTime),
  });
  return { ...fields, message };
}

export type SessionBody = { message: string; signature: string; publicKey: string };
export type NewSession = { token: string; expiresAt: Date; publicKey: string };

const refused = refusalErrors({
  notIssued:
    'This message was not issued by this service for an operator session of this public key, or it was altered. Ask /api/v1/operator/sessions/init for one.',
  usedTo: 'sign in',
  initPath: '/api/v1/operator/sessions/init',
});
const notIssued = refused.message_not_issued;

/**
 * Opens a session for a signed operator message. The answers come in the claim's order: whether
 * we issued it, then the signature; only a holder of the key learns whether it was used, has
 * expired, or whether the wallet is an operator.
 */
export async function createOperatorSession(services: SessionDeps, body: SessionBody): Promise<NewSession> {
  const nonce = nonceOf(body.message);
  if (!nonce) throw notIssued();
  const nonceHash = operatorNonceHash(nonce);
  const issued = await findOperatorMessage(services.store.sql, nonceHash);
  const now = new Date();
  const refusal = refusalOf(body, issued, now);
  if (refusal) throw refused[refusal]();
  if (!services.config.operatorWallets.includes(body.publicKey)) {
    services.log.warn({ event: 'operator_sign_in_refused', publicKey: body.publicKey }, 'a wallet that is not an operator signed in');
    throw new AppError('forbidden', 'This wallet is not an operator of this service (OPERATOR_WALLETS).');
  }

  const token = newToken(SESSION_TOKEN_PREFIX);
  const expiresAt = new Date(now.getTime() + SESSION_TTL_SECONDS * 1000);
  const opened = await openSession(services.store.sql, { nonceHash, publicKey: body.publicKey, now, tokenHash: tokenHash(token), expiresAt });
  if (!opened) {
    // Used or expired between the read and now: read again to say which.
    const again = await findOperatorMessage(services.store.sql, nonceHash);
    throw again?.usedAt ? refused.message_already_used() : refused.message_expired();
  }
  services.log.info({ event: 'operator_signed_in', publicKey: body.publicKey }, 'operator session opened');
  // Sessions that ended a day ago are of no use to anyone: keep the table small.
  await purgeEndedSessions(services.store.sql, new Date(now.getTime() - 24 * 60 * 60 * 1000)).catch(() => {});
  return { token, expiresAt, publicKey: body.publicKey };
}

/** Ends the caller's session (sign out). An API key is revoked through its own endpoint instead. */
export async function endSession(services: SessionDeps, operator: Operator): Promise<void> {
  if (operator.via !== 'session') {
    throw new AppError('forbidden', 'This is an API key, not a session: revoke it with DELETE /api/v1/operator/api-keys/{id}.');
  }
  await revokeSession(services.store.sql, operator.credentialId, new Date());
  services.log.info({ event: 'operator_signed_out', publicKey: operator.publicKey }, 'operator session ended');
}
