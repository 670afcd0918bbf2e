// A pass's life after its claim: voided (by an operator, or by the eligibility re-check with
// reason `not_eligible`), restored, and its dates (expiry, relevance) set by an operator. Each change moves updated_at and, in the same statement,
// enqueues the webhook event (when WEBHOOK_URL is set) and the internal `pass.changed` job, whose
// handler (living passes) pushes the change to every registered device and to Google Wallet.
import { changePass, type ChangeJob, type OperatorPass } from '../db/operators';
import { AppError } from '../errors';
import { notifyJobsEnqueued } from '../queue';
import type { Services } from '../services';
import { newWebhookMessageId, WEBHOOK_JOB, type WebhookEventType } from '../webhooks';

/** The internal job of a pass change: `{serialNumber}`. */
export const PASS_CHANGED_JOB = 'pass.changed';

export type PassChange = { pass: OperatorPass; changed: boolean };

const passNotFound = () => new AppError('pass_not_found', 'No pass has this serial number.');

/**
 * Voids a pass. Voiding a pass already voided for the same reason changes nothing (no event);
 * for another reason, the reason is replaced and the change announced again.
 */
export async function voidPass(services: Services, serialNumber: string, reason: string, only?: { ifActive: true }): Promise<PassChange> {
  const jobs = changeJobs(services, 'pass.voided', 3);
  const result = await changePass(services.store.sql, serialNumber, {
    set: `status = 'voided', void_reason = $2`,
    // `ifActive` (the eligibility re-check): never overwrite the reason of an operator's void.
    when: only?.ifActive ? `status = 'active'` : `status <> 'voided' or void_reason is distinct from $2`,
    params: [reason, ...jobs.params],
    jobs: jobs.jobs,
  });
  return announced(services, result, 'pass.voided');
}

/** Restores a voided pass; restoring an active pass changes nothing. */
export async function restorePass(services: Services, serialNumber: string, only?: { voidReason: string }): Promise<PassChange> {
  const jobs = changeJobs(services, 'pass.restored', 2);
  const result = await changePass(services.store.sql, serialNumber, {
    set: `status = 'active', void_reason = null`,
    // `voidReason` (the eligibility re-check): restore only a pass voided for that reason, never an operator's void.
    when: only ? `status <> 'active' and void_reason = $${2 + jobs.params.length}` : `status <> 'active'`,
    params: only ? [...jobs.params, only.voidReason] : jobs.params,
    jobs: jobs.jobs,
  });
  return announced(services, result, 'pass.restored');
}

/** A pass's dates to set (a Date), clear (null) or leave as they are (undefined). */
export type PassDates = { expirationDate?: Date | null; relevantDate?: Date | null };

/**
 * Sets or clears a pass's expiration and relevant dates. Setting the dates it already has changes
 * nothing (no event); a change is announced as `pass.updated`, with the same updates as a void.
 */
export async function updatePassDates(services: Services, serialNumber: string, dates: PassDates): Promise<PassChange> {
  const columns = ([['expires_at', dates.expirationDate], ['relevant_at', dates.relevantDate]] as const).filter(([, value]) => value !== undefined);
  if (columns.length === 0) throw new AppError('invalid_request', 'Nothing to change: set expirationDate or relevantDate.');
  const jobs = changeJobs(services, 'pass.updated', 2 + columns.length);
  const result = await changePass(services.store.sql, serialNumber, {
    set: columns.map(([column], i) => `${column} = $${2 + i}::timestamptz`).join(', '),
    when: columns.map(([column], i) => `${column} is distinct from $${2 + i}::timestamptz`).join(' or '),
    params: [...columns.map(([, value]) => value?.toISOString() ?? null), ...jobs.params],
    jobs: jobs.jobs,
  });
  return announced(services, result, 'pass.updated');
}

function announced(services: Services, result: PassChange | undefined, type: WebhookEventType): PassChange {
  if (!result) throw passNotFound();
  if (result.changed) {
    notifyJobsEnqueued();
    services.log.info({ event: type.replace('.', '_'), serial: result.pass.serialNumber, reason: result.pass.voidReason ?? undefined }, type);
  }
  return result;
}

/** A timestamptz column as JavaScript's toISOString() writes it (null stays null). */
const UTC_ISO = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The jobs of a change, their payloads built from the changed row `c`; the webhook's message id,
 * type and time are bound parameters from $`first` on.
 */
function changeJobs(services: Services, type: WebhookEventType, first: number): { jobs: ChangeJob[]; params: unknown[] } {
  const jobs: ChangeJob[] = [{ kind: PASS_CHANGED_JOB, payloadSql: `jsonb_build_object('serialNumber', c.serial_number)` }];
  if (!services.config.webhook) return { jobs, params: [] };
  const [id, kind, at] = [`$${first}::text`, `$${first + 1}::text`, `$${first + 2}::text`];
  jobs.push({
    kind: WEBHOOK_JOB,
    payloadSql: `jsonb_build_object('id', ${id}, 'type', ${kind}, 'timestamp', ${at}, 'data',
      jsonb_strip_nulls(jsonb_build_object('serialNumber', c.serial_number, 'publicKey', c.public_key, 'walletType', c.wallet_type, 'reason', c.void_reason,
        'expirationDate', ${UTC_ISO('c.expires_at')}, 'relevantDate', ${UTC_ISO('c.relevant_at')})))`,
  });
  return { jobs, params: [newWebhookMessageId(), type, new Date().toISOString()] };
}
