// What follows a change of a pass, as jobs of the durable queue (lib/queue): voidPass and
// restorePass (lib/passes/lifecycle.ts) enqueue `pass.changed` in the same statement as the change.
// Its handler only fans out: one `apns.push` job per registered device (enqueued in one
// statement, so a pass held on 1,000 devices is 1,000 rows written at once, and voiding it
// answers at once), and one `google.object.sync` when the pass has a Google Wallet object. Each
// push then succeeds, retries with the queue's backoff, or removes its registration when APNs says
// the token is not valid (410, 400 BadDeviceToken / DeviceTokenNotForTopic), on
// whichever instance claims it; none is lost when an instance dies mid-way (the lease runs out
// and another instance runs it again: at least once, and a repeated push is harmless, since the
// device then finds nothing newer).
import type { Config } from '../config';
import { findPass, markGoogle } from '../db/passes';
import { registrationsOf, unregister } from '../db/registrations';
import type { Store } from '../db/store';
import { type JobContext, PermanentJobFailure, type TaskList } from '../queue';
import { webhookEventData, webhookEventJobs } from '../webhooks';
import { HOPELESS_REASONS } from './apns';
import { asSerialNumber, type SerialNumber } from './ids';
import { PASS_CHANGED_JOB } from './lifecycle';
import { currentPassContent, type Living } from './living';

export const APNS_PUSH_JOB = 'apns.push';
export const GOOGLE_OBJECT_SYNC_JOB = 'google.object.sync';

type PassChanged = { serialNumber: SerialNumber };
type ApnsPush = { serialNumber: SerialNumber; deviceLibraryIdentifier: string; pushToken: string };
type GoogleObjectSync = { serialNumber: SerialNumber };

/** What the handlers of a change need. */
export type ChangeJobsDeps = {
  config: Pick<Config, 'webhook' | 'devicesPerPass'>;
  store: Pick<Store, 'sql' | 'jobs'>;
  living: Pick<Living, 'apns' | 'googleApi' | 'tokenKey' | 'barcodeKey'>;
};

/** The queue's handlers of a pass change: the fan-out, each device's push, the Google object's sync. */
export const changeTasks = (deps: ChangeJobsDeps): TaskList => ({
  [PASS_CHANGED_JOB]: (payload: PassChanged) => passChanged(deps, payload),
  [APNS_PUSH_JOB]: (payload: ApnsPush, context) => apnsPush(deps, payload, context),
  [GOOGLE_OBJECT_SYNC_JOB]: (payload: GoogleObjectSync) => googleObjectSync(deps, payload),
});

async function passChanged(deps: ChangeJobsDeps, payload: PassChanged): Promise<void> {
  const serialNumber = asSerialNumber(payload.serialNumber);
  const registrations = await registrationsOf(deps.store.sql, serialNumber, deps.config.devicesPerPass);
  const pass = deps.living.googleApi ? await findPass(deps.store.sql, { serialNumber }) : undefined;
  await deps.store.jobs.enqueue([
    ...registrations.map(({ deviceLibraryIdentifier, pushToken }) => ({ kind: APNS_PUSH_JOB, payload: { serialNumber, deviceLibraryIdentifier, pushToken } })),
    // Only passes whose save link was handed out have (or may have) a Google object.
    ...(pass?.googleLinkedAt ? [{ kind: GOOGLE_OBJECT_SYNC_JOB, payload: { serialNumber } }] : []),
  ]);
}

async function apnsPush(deps: ChangeJobsDeps, payload: ApnsPush, { log }: JobContext): Promise<void> {
  const serialNumber = asSerialNumber(payload.serialNumber);
  const outcome = await deps.living.apns.push(payload.pushToken);
  switch (outcome.kind) {
    case 'delivered':
      return;
    case 'gone': {
      const pass = await findPass(deps.store.sql, { serialNumber });
      const { deviceLibraryIdentifier, pushToken } = payload;
      const event = pass
        ? webhookEventJobs(deps.config, 'device.unregistered', webhookEventData(pass, { deviceLibraryIdentifier, reason: 'push_token_gone' }), new Date())
        : [];
      const removed = await unregister(deps.store.jobs, { deviceLibraryIdentifier, serialNumber, pushToken }, event);
      log.info({ event: 'apns_token_gone', serial: serialNumber, reason: outcome.reason, removed }, 'push token no longer valid: registration removed');
      return;
    }
    case 'rejected':
      if (HOPELESS_REASONS.has(outcome.reason)) throw new PermanentJobFailure(`APNs ${outcome.status} ${outcome.reason}`);
      // 403 BadCertificate, TopicDisallowed…: a configuration an operator can fix; keep retrying.
      throw new Error(`APNs ${outcome.status} ${outcome.reason}`);
    case 'retry':
      throw new Error(`APNs ${outcome.status ?? 'no answer'}: ${outcome.reason}`);
  }
}

async function googleObjectSync(deps: ChangeJobsDeps, payload: GoogleObjectSync): Promise<void> {
  const { living } = deps;
  const serialNumber = asSerialNumber(payload.serialNumber);
  if (!living.googleApi) throw new PermanentJobFailure('Google Wallet is no longer configured');
  const pass = await findPass(deps.store.sql, { serialNumber });
  if (!pass) throw new PermanentJobFailure('no such pass');
  // The pass (and its program) as it is now, not as it was when the job was made: a late retry never undoes a later change.
  await living.googleApi.upsertObject(await currentPassContent(deps.store, pass, living));
  if (!pass.googleObjectAt) await markGoogle(deps.store.sql, serialNumber, new Date(), true);
}
