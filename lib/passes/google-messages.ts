// A message to one pass's Google object (a queue job calls it, once per pass of a program-wide
// message): notifying (TEXT_AND_NOTIFY) while the pass has had fewer than 3 notifications in
// 24 hours, as plain text (TEXT) after, so that Google never refuses it for its quota. The count
// is the database's (lib/db/google-notifications.ts), shared by every instance. Should Google
// refuse anyway (its count and ours may differ, e.g. another system messages the same issuer's
// objects), the message goes again as TEXT: the text reaches the pass either way.
import type { Clock } from '../clock';
import { takeGoogleNotification } from '../db/google-notifications';
import { findPass } from '../db/passes';
import type { Store } from '../db/store';
import type { Logger } from '../log';
import { PermanentJobFailure, type TaskList } from '../queue';
import { GoogleApiError, type GoogleMessageType } from './google-api';
import { asSerialNumber, type SerialNumber } from './ids';
import type { Living } from './living';

export type GoogleMessageDeps = {
  store: Pick<Store, 'sql'>;
  living: Pick<Living, 'googleApi'>;
  clock: Clock;
  log: Logger;
};

/** A message update's Google side, one job per pass with a Google object (lib/updates/fan-out.ts). */
export const GOOGLE_MESSAGE_JOB = 'google.message';

export type GoogleMessagePayload = { serialNumber: string; message: { id: string; header: string; body: string } };

export const googleMessageTasks = (deps: GoogleMessageDeps): TaskList => ({
  [GOOGLE_MESSAGE_JOB]: async (payload: GoogleMessagePayload, { signal }) => {
    await sendGoogleMessage(deps, asSerialNumber(payload.serialNumber), payload.message, signal);
  },
});

/**
 * Adds the message to the pass's Google object. `id` is the message's (the same for every pass of
 * one program-wide message, and on each retry of its job: a retry never takes a 2nd notification).
 * `sent` is how it went; `no_object` when the pass has no Google object (its save link was never
 * handed out, or never used).
 */
export async function sendGoogleMessage(
  deps: GoogleMessageDeps,
  serialNumber: SerialNumber,
  message: { id: string; header: string; body: string },
  /** The queue job's signal (its lease running out): ends a wait for Google's turn. */
  signal?: AbortSignal,
): Promise<{ sent: GoogleMessageType | 'no_object' }> {
  const api = deps.living.googleApi;
  if (!api) throw new PermanentJobFailure('Google Wallet is not configured');
  const pass = await findPass(deps.store.sql, { serialNumber });
  if (!pass) throw new PermanentJobFailure('no such pass');
  if (!pass.googleLinkedAt) return { sent: 'no_object' };
  const notify = await takeGoogleNotification(deps.store.sql, serialNumber, message.id, new Date(deps.clock.now()));
  const messageType: GoogleMessageType = notify ? 'TEXT_AND_NOTIFY' : 'TEXT';
  try {
    return { sent: (await api.addMessage(pass, { ...message, messageType }, signal)) ? messageType : 'no_object' };
  } catch (error) {
    if (!(error instanceof GoogleApiError && error.notificationQuota && notify)) throw error;
    deps.log.warn({ event: 'google_notification_quota', serial: serialNumber.slice(0, 8) }, 'Google refused a notification the count allowed: sent as text');
    return { sent: (await api.addMessage(pass, { ...message, messageType: 'TEXT' }, signal)) ? 'TEXT' : 'no_object' };
  }
}
