// A pass's life after its claim: voided (by an operator, or by the eligibility re-check with
// reason `not_eligible`), restored, and its dates (expiry, relevance) set by an operator. Each
// change moves updated_at and, in the same statement, enqueues the webhook event (when
// WEBHOOK_URL is set) and the internal `pass.changed` job, whose handler (./change-jobs.ts) pushes
// the change to every registered device and to Google Wallet. The event is built here from the
// pass as the change leaves it; the statement applies the change only to the version of the pass
// it was computed from, so the event never tells a state the pass did not have.
import type { Config } from '../config';
import { changePass, findPass, type OperatorPass, type PassCondition, type PassPatch } from '../db/passes';
import type { Store } from '../db/store';
import { AppError } from '../errors';
import type { Logger } from '../log';
import { type WebhookEventType, webhookEventData, webhookEventJobs } from '../webhooks';
import { asSerialNumber } from './ids';

/** The internal job of a pass change: `{serialNumber}`. */
export const PASS_CHANGED_JOB = 'pass.changed';

export type PassChange = { pass: OperatorPass; changed: boolean };

/** What a change of a pass needs. */
export type LifecycleDeps = { config: Pick<Config, 'webhook'>; log: Logger; store: Pick<Store, 'sql' | 'jobs'> };

/** How many times a change is computed again when the pass changed meanwhile. */
const CHANGE_ATTEMPTS = 5;

const passNotFound = () => new AppError('pass_not_found', 'No pass has this serial number.');

/**
 * Voids a pass. Voiding a pass already voided for the same reason changes nothing (no event);
 * for another reason, the reason is replaced and the change announced again.
 */
export function voidPass(deps: LifecycleDeps, serialNumber: string, reason: string, only?: { ifActive: true }): Promise<PassChange> {
  // `ifActive` (the eligibility re-check): never overwrite the reason of an operator's void.
  return changeAndAnnounce(deps, serialNumber, 'pass.voided', { status: 'voided', voidReason: reason }, only?.ifActive ? { status: 'active' } : undefined);
}

/** Restores a voided pass; restoring an active pass changes nothing. */
export function restorePass(deps: LifecycleDeps, serialNumber: string, only?: { voidReason: string }): Promise<PassChange> {
  // `voidReason` (the eligibility re-check): restore only a pass voided for that reason, never an operator's void.
  return changeAndAnnounce(deps, serialNumber, 'pass.restored', { status: 'active', voidReason: null }, only ? { voidReason: only.voidReason } : undefined);
}

/** A pass's dates to set (a Date), clear (null) or leave as they are (undefined). */
export type PassDates = { expirationDate?: Date | null; relevantDate?: Date | null };

/**
 * Sets or clears a pass's expiration and relevant dates. Setting the dates it already has changes
 * nothing (no event); a change is announced as `pass.updated`, with the same updates as a void.
 */
export function updatePassDates(deps: LifecycleDeps, serialNumber: string, dates: PassDates): Promise<PassChange> {
  const patch: PassPatch = {
    ...(dates.expirationDate !== undefined ? { expirationDate: dates.expirationDate } : {}),
    ...(dates.relevantDate !== undefined ? { relevantDate: dates.relevantDate } : {}),
  };
  if (Object.keys(patch).length === 0) return Promise.reject(new AppError('invalid_request', 'Nothing to change: set expirationDate or relevantDate.'));
  return changeAndAnnounce(deps, serialNumber, 'pass.updated', patch);
}

async function changeAndAnnounce(deps: LifecycleDeps, serial: string, type: WebhookEventType, patch: PassPatch, require?: PassCondition): Promise<PassChange> {
  const serialNumber = asSerialNumber(serial);
  for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
    const pass = await findPass(deps.store.sql, { serialNumber });
    if (!pass) throw passNotFound();
    const after = { ...pass, ...patch };
    const jobs = [
      { kind: PASS_CHANGED_JOB, payload: { serialNumber } },
      ...webhookEventJobs(deps.config, type, webhookEventData(after, { reason: after.voidReason }), new Date()),
    ];
    const result = await changePass(deps.store.jobs, { serialNumber, version: pass.version, patch, require, jobs });
    if (!result) throw passNotFound();
    if (result.moved) continue;
    if (result.changed) {
      deps.log.info({ event: type.replace('.', '_'), serial: result.pass.serialNumber, reason: result.pass.voidReason ?? undefined }, type);
    }
    return { pass: result.pass, changed: result.changed };
  }
  throw new Error('the pass kept changing while a change of it was made');
}
