// Operator API keys: long-lived bearer tokens for automation, or for a door (scope `scan`:
// checking passes in only, ./scopes.ts). The key is shown once, at creation; only its SHA-256 is
// stored. A key is made from a session, acts for the operator who made it, and stops working when
// that wallet leaves OPERATOR_WALLETS or the key is revoked.
import { randomBytes } from 'node:crypto';
import { type ApiKeyInfo, insertApiKey, listApiKeys, revokeApiKey } from '../db/api-keys';
import type { Store } from '../db/store';
import { AppError } from '../errors';
import type { Logger } from '../log';
import { API_KEY_PREFIX, newToken, type Operator, tokenHash } from './auth';
import type { Scope } from './scopes';

export type NewApiKey = ApiKeyInfo & { key: string };

/** What the API keys' use cases need. */
export type ApiKeysDeps = { store: Pick<Store, 'sql'>; log: Logger };

/**
 * A new key, for a signed-in operator only. A key may not make keys: each would outlive the key
 * that made it, so one leaked key could mint successors that survive its revocation. Every key
 * then traces to a wallet's signature, the wallet its list shows as `createdBy`.
 */
export async function createApiKey(services: ApiKeysDeps, operator: Operator, name: string | undefined, scope: Scope = 'operator'): Promise<NewApiKey> {
  if (operator.via !== 'session') {
    throw new AppError('forbidden', 'API keys are created from a signed-in session only, not with an API key: sign in with the operator wallet to create one.');
  }
  const key = newToken(API_KEY_PREFIX);
  const info: ApiKeyInfo = {
    // Public, for listing and revoking: not derived from the key.
    id: `key_${randomBytes(9).toString('base64url')}`,
    name: name ?? null,
    scope,
    createdBy: operator.publicKey,
    createdAt: new Date(),
    lastUsedAt: null,
  };
  await insertApiKey(services.store.sql, { ...info, keyHash: tokenHash(key) });
  services.log.info({ event: 'api_key_created', id: info.id, scope, by: operator.publicKey }, 'operator API key created');
  return { ...info, key };
}

export const getApiKeys = (services: Pick<ApiKeysDeps, 'store'>): Promise<ApiKeyInfo[]> => listApiKeys(services.store.sql);

/** Revokes a key; revoking one already revoked is no error. */
export async function deleteApiKey(services: ApiKeysDeps, operator: Operator, id: string): Promise<void> {
  const outcome = await revokeApiKey(services.store.sql, id, new Date());
  if (outcome === 'unknown') throw new AppError('api_key_not_found', 'No API key has this id.');
  services.log.info({ event: 'api_key_revoked', id, by: operator.publicKey }, 'operator API key revoked');
}
