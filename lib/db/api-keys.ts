// The `operator_api_keys` table: long-lived bearer keys of operators, only their SHA-256 stored.
import type { Scope } from '../operators/scopes';
import { asDate, asOptionalDate, onlyRow, type Queryable } from './sql';

export type ApiKeyInfo = { id: string; name: string | null; scope: Scope; createdBy: string; createdAt: Date; lastUsedAt: Date | null };

type ApiKeyRowOut = Omit<ApiKeyInfo, 'createdAt' | 'lastUsedAt'> & { createdAt: Date | string; lastUsedAt: Date | string | null };

const API_KEY_COLUMNS = `id, name, scope, created_by as "createdBy", created_at as "createdAt", last_used_at as "lastUsedAt"`;
const toApiKey = (row: ApiKeyRowOut): ApiKeyInfo => ({ ...row, createdAt: asDate(row.createdAt), lastUsedAt: asOptionalDate(row.lastUsedAt) });

export async function insertApiKey(
  db: Queryable,
  key: { id: string; keyHash: string; name: string | null; scope: Scope; createdBy: string; createdAt: Date },
): Promise<void> {
  await db.query(`insert into operator_api_keys (id, key_hash, name, scope, created_by, created_at) values ($1, $2, $3, $4, $5, $6)`, [
    key.id,
    key.keyHash,
    key.name,
    key.scope,
    key.createdBy,
    key.createdAt.toISOString(),
  ]);
}

/** The live keys of these hashes, by hash, each one's last use recorded in the same statement: one for every request that arrived together (Store.apiKey). */
export async function useApiKeys(db: Queryable, hashes: string[], now: Date): Promise<Map<string, ApiKeyInfo>> {
  const rows = await db.query<ApiKeyRowOut & { keyHash: string }>(
    `update operator_api_keys set last_used_at = $2 where key_hash = any($1::text[]) and revoked_at is null
     returning key_hash as "keyHash", ${API_KEY_COLUMNS}`,
    [hashes, now.toISOString()],
  );
  return new Map(rows.map(({ keyHash, ...row }) => [keyHash, toApiKey(row)]));
}

/** The keys not revoked, newest first. */
export async function listApiKeys(db: Queryable): Promise<ApiKeyInfo[]> {
  const rows = await db.query<ApiKeyRowOut>(`select ${API_KEY_COLUMNS} from operator_api_keys where revoked_at is null order by created_at desc, id`);
  return rows.map(toApiKey);
}

/** Revokes a key: 'revoked' (now or before), or 'unknown'. */
export async function revokeApiKey(db: Queryable, id: string, now: Date): Promise<'revoked' | 'unknown'> {
  const rows = await db.query<{ found: boolean }>(
    `with revoked as (update operator_api_keys set revoked_at = coalesce(revoked_at, $2) where id = $1 returning 1)
     select exists (select 1 from revoked) as found`,
    [id, now.toISOString()],
  );
  return onlyRow(rows, 'revokeApiKey').found ? 'revoked' : 'unknown';
}
