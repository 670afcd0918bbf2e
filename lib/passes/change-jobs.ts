// What follows a change of a pass, as jobs of the durable queue (lib/queue): voidPass and
// restorePass (lib/passes/lifecycle.ts) enqueue `pass.changed` in the same breath as the change.
// Its handler only fans out: one `apns.push` job per registered device (enqueued in one
// statement, so a pass held on 1,000 devices is 1,000 rows written at once, and voiding it
// answers at once), and one `google.object.sync` when the pass has a Google Wallet object. Each
// push then succeeds, retries with the queue's backoff, or removes its registration on a 410, on
// whichever instance claims it; none is lost when an instance dies mid-way (the lease runs out
// and another instance runs it again: at least once, and a repeated push is harmless, since the
// device then finds nothing newer).
import { enqueue, PermanentJobFailure, registerJobHandler, type JobContext } from '../queue';
import { enqueueWebhookEvent } from '../webhooks';
import { PASS_CHANGED_JOB } from './lifecycle';
import { passContentOf } from './living';

export const APNS_PUSH_JOB = 'apns.push';
export const GOOGLE_OBJECT_SYNC_JOB = 'google.object.sync';

type PassChanged = { serialNumber: string };
type ApnsPush = { serialNumber: string; deviceLibraryIdentifier: string; pushToken: string };
type GoogleObjectSync = { serialNumber: string };

/** Reasons of a 400 that say the token itself is bad: retrying will not change the answer. */
const HOPELESS_REASONS = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic', 'MissingDeviceToken']);

async function passChanged({ serialNumber }: PassChanged, { services }: JobContext): Promise<void> {
  const { living } = services;
  const registrations = await living.store.registrationsOf(serialNumber);
  const pass = living.googleApi ? await living.store.passBySerial(serialNumber) : undefined;
  await enqueue(services.store.sql, [
    ...registrations.map(({ deviceLibraryIdentifier, pushToken }) => ({ kind: APNS_PUSH_JOB, payload: { serialNumber, deviceLibraryIdentifier, pushToken } })),
    // Only passes whose save link was handed out have (or may have) a Google object.
    ...(pass?.googleLinkedAt ? [{ kind: GOOGLE_OBJECT_SYNC_JOB, payload: { serialNumber } }] : []),
  ]);
}

async function apnsPush(payload: ApnsPush, { services, log }: JobContext): Promise<void> {
  const outcome = await services.living.apns.push(payload.pushToken);
  switch (outcome.kind) {
    case 'delivered':
      return;
    case 'gone': {
      const removed = await services.living.store.removeGoneRegistration(payload.deviceLibraryIdentifier, payload.serialNumber, payload.pushToken);
      log.info({ event: 'apns_token_gone', serial: payload.serialNumber, reason: outcome.reason, removed }, 'push token no longer valid: registration removed');
      const pass = removed ? await services.living.store.passBySerial(payload.serialNumber) : undefined;
      if (pass) {
        await enqueueWebhookEvent(services, 'device.unregistered', {
          serialNumber: pass.serialNumber,
          publicKey: pass.publicKey,
          walletType: pass.walletType,
          deviceLibraryIdentifier: payload.deviceLibraryIdentifier,
          reason: 'push_token_gone',
        });
      }
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

async function googleObjectSync({ serialNumber }: GoogleObjectSync, { services }: JobContext): Promise<void> {
  const { living } = services;
  if (!living.googleApi) throw new PermanentJobFailure('Google Wallet is no longer configured');
  const pass = await living.store.passBySerial(serialNumber);
  if (!pass) throw new PermanentJobFailure('no such pass');
  // The pass as it is now, not as it was when the job was made: a late retry never undoes a later change.
  await living.googleApi.upsertObject(passContentOf(pass, living.tokenKey));
  if (!pass.googleObjectAt) await living.store.markGoogle(serialNumber, new Date(), true);
}

/** Registers the handlers (once per process; registering again replaces them). */
export function registerChangeJobs(): void {
  registerJobHandler(PASS_CHANGED_JOB, passChanged);
  registerJobHandler(APNS_PUSH_JOB, apnsPush);
  registerJobHandler(GOOGLE_OBJECT_SYNC_JOB, googleObjectSync);
}
