// The fan-out of an update (a program change or a message) to every device of its program, as
// jobs of the durable queue, in a lane of their own beside the pushes' (lib/services.ts):
// - `update.plan` cuts the program's devices into batches of DEVICES_PER_BATCH, each a range of
//   keys (serial, device), in one statement with every batch's job (lib/db/updates.ts): a planner
//   that dies has planned nothing, and one run again after it succeeded plans nothing more. The
//   devices are numbered inside the database; none is read here. (Paging through them here, one
//   statement per batch, kept every batch waiting behind planning: about 2,500 devices a second.)
//   It also enqueues, for each pass with a Google object, its sync (a change) or its addMessage (a
//   message: lib/passes/google-messages.ts), deduplicated per update.
// - `update.batch` reads its range's devices, pushes them all at once over HTTP/2 (ApnsClient.
//   pushAll: as many streams as APNs allows, on several connections), and records the outcomes
//   in one statement: counters, the registrations whose token is gone removed (with their
//   device.unregistered events), and one retry batch for the other failures, due after the
//   queue's backoff. The statement marks the batch done only if it was not: a batch run twice
//   (its instance died, the lease ran out) pushes its devices twice but counts them once.
// Batches are separate jobs, so every instance works on them at once. Each instance pushes at most
// BATCHES_IN_FLIGHT of them at a time (their lane's concurrency), and pushAll yields the event loop
// between pushes started, so claims served by the same instance keep their latency.
import type { Config } from '../config';
import type { JobInput } from '../db/jobs';
import { googleLinkedSerialsOfProgram } from '../db/passes';
import { type BatchRegistration, devicesOfProgramBetween, registrationsAmong } from '../db/registrations';
import type { Store } from '../db/store';
import { type BatchDevice, findBatch, findUpdateProgress, planUpdate, recordBatch, type UpdateProgress } from '../db/updates';
import { type ApnsClient, HOPELESS_REASONS, type PushOutcome } from '../passes/apns';
import { GOOGLE_OBJECT_SYNC_JOB } from '../passes/change-jobs';
import { GOOGLE_MESSAGE_JOB, type GoogleMessagePayload } from '../passes/google-messages';
import { type JobContext, PermanentJobFailure, type TaskList } from '../queue';
import { retryDelayMs } from '../queue/worker';
import { updateFinishedJobs, webhookEventData, webhookEventJobs } from '../webhooks';
import { type PlanPayload, UPDATE_BATCH_JOB, UPDATE_PLAN_JOB, type UpdateMessage } from './kinds';

/**
 * Devices per batch: large enough that a batch's two statements are few per push, small enough
 * that a batch of pushes is well inside the job's lease and a batch run twice (its instance died)
 * pushes few devices twice.
 */
export const DEVICES_PER_BATCH = 500;
/** Passes read per statement when enqueueing Google syncs. */
const GOOGLE_PAGE = 1000;
/** A device whose push failed this many times (a batch and its retries) is counted failed. */
export const PUSH_ATTEMPTS = 5;

export type FanOutDeps = {
  config: Pick<Config, 'webhook' | 'jobRetryBaseMs'>;
  store: Pick<Store, 'sql' | 'jobs'>;
  living: { apns: Pick<ApnsClient, 'pushAll'>; googleApi?: unknown };
};

type BatchPayload = { update: string; batch: string };

/**
 * Update jobs run at once per instance: the concurrency of their lane (lib/services.ts), so at
 * most this many batches push at a time. Four keep up to 2,000 pushes in flight, far more than a
 * 20 ms APNs round trip needs for thousands a second, and leave most of the database pool
 * (DATABASE_POOL_SIZE, 10 by default) and of the event loop to claims (docs/benchmarks.md). A
 * lane of their own, beside the pushes' lane, so a single pass's pushes (a void, a restore) never
 * wait behind an update's batches, and neither waits behind webhook deliveries.
 */
export const BATCHES_IN_FLIGHT = 4;

export const updateTasks = (deps: FanOutDeps): TaskList => ({
  [UPDATE_PLAN_JOB]: (payload: PlanPayload) => plan(deps, payload.update, payload.message),
  [UPDATE_BATCH_JOB]: (payload: BatchPayload, context) => runBatch(deps, payload, context),
});

const batchJob = (update: string, batch: string) => ({ kind: UPDATE_BATCH_JOB, payload: { update, batch } satisfies BatchPayload });

const finishedEvent = (deps: FanOutDeps, update: UpdateProgress) => updateFinishedJobs(deps.config, update, new Date());

async function plan(deps: FanOutDeps, updateId: string, message?: UpdateMessage): Promise<void> {
  const update = await findUpdateProgress(deps.store.sql, updateId);
  if (!update) throw new PermanentJobFailure('no such update');
  if (update.planned) return;
  if (deps.living.googleApi) await enqueueGoogleJobs(deps, update, message);
  await planUpdate(deps.store.jobs, updateId, DEVICES_PER_BATCH, UPDATE_BATCH_JOB, finishedEvent(deps, update));
}

/**
 * For each pass that has a Google object, its sync (a change) or the message (a message update,
 * its id the update's, so that a retried job takes no second notification); deduplicated per
 * update, so planning run twice enqueues each once.
 */
async function enqueueGoogleJobs(deps: FanOutDeps, update: UpdateProgress, message: UpdateMessage | undefined): Promise<void> {
  for (let after = ''; ; ) {
    const serials = await googleLinkedSerialsOfProgram(deps.store.sql, update.program, update.activeOnly, after, GOOGLE_PAGE);
    if (serials.length === 0) return;
    await deps.store.jobs.enqueue(
      serials.map((serialNumber) =>
        message
          ? {
              kind: GOOGLE_MESSAGE_JOB,
              payload: { serialNumber, message: { id: update.id, ...message } } satisfies GoogleMessagePayload,
              dedupeKey: `${update.id}:${serialNumber}`,
            }
          : { kind: GOOGLE_OBJECT_SYNC_JOB, payload: { serialNumber }, dedupeKey: `${update.id}:${serialNumber}` },
      ),
    );
    after = serials[serials.length - 1] as string;
  }
}

async function runBatch(deps: FanOutDeps, payload: BatchPayload, { signal, log }: JobContext): Promise<void> {
  const { sql, jobs } = deps.store;
  const batch = await findBatch(sql, payload.update, payload.batch);
  if (!batch) throw new PermanentJobFailure('no such batch');
  if (batch.doneAt) return;
  const update = await findUpdateProgress(sql, payload.update);
  if (!update) throw new PermanentJobFailure('no such update');
  const of = { program: update.program, activeOnly: update.activeOnly };
  const devices: BatchRegistration[] = batch.retry
    ? await registrationsAmong(sql, batch.retry)
    : await devicesOfProgramBetween(
        sql,
        of,
        { serial: batch.afterSerial ?? '', device: batch.afterDevice ?? '' },
        { serial: batch.lastSerial ?? '', device: batch.lastDevice ?? '' },
      );

  const outcomes = await deps.living.apns.pushAll(
    devices.map((device) => device.pushToken),
    signal,
  );
  // Cut short (lease running out, shutdown): record nothing; the batch runs again, whole.
  if (signal.aborted) throw new Error('batch cut short: it runs again');

  let pushed = 0;
  let failed = batch.retry ? batch.devices - devices.length : 0; // retried devices unregistered meanwhile
  const gone: BatchDevice[] = [];
  const goneEvents: (JobInput & { key: string })[] = [];
  const again: BatchDevice[] = [];
  const now = new Date();
  devices.forEach((device, index) => {
    const outcome = outcomes[index] as PushOutcome;
    const { serialNumber, deviceLibraryIdentifier, pushToken } = device;
    switch (outcome.kind) {
      case 'delivered':
        pushed++;
        return;
      case 'gone':
        failed++;
        gone.push({ serialNumber, deviceLibraryIdentifier, pushToken });
        goneEvents.push(
          ...webhookEventJobs(deps.config, 'device.unregistered', webhookEventData(device, { deviceLibraryIdentifier, reason: 'push_token_gone' }), now).map(
            (job) => ({ ...job, key: `gone:${deviceLibraryIdentifier}:${serialNumber}` }),
          ),
        );
        return;
      case 'rejected':
        if (HOPELESS_REASONS.has(outcome.reason)) {
          failed++;
          return;
        }
        break;
      case 'retry':
        break;
    }
    if (batch.attempt >= PUSH_ATTEMPTS) failed++;
    else again.push({ serialNumber, deviceLibraryIdentifier, pushToken });
  });

  const retryKey = `${payload.batch}+${batch.attempt + 1}`;
  const { recorded, finished } = await recordBatch(jobs, update.id, payload.batch, {
    pushed,
    failed,
    delta: batch.retry ? 0 : devices.length - batch.devices,
    gone,
    goneEvents,
    ...(again.length > 0
      ? {
          retry: {
            key: retryKey,
            devices: again,
            attempt: batch.attempt + 1,
            job: { ...batchJob(update.id, retryKey), runAt: new Date(Date.now() + retryDelayMs(batch.attempt, deps.config.jobRetryBaseMs)) },
          },
        }
      : {}),
    finished: finishedEvent(deps, update),
  });
  if (gone.length > 0 || again.length > 0) {
    log.info(
      { event: 'update_batch', update: update.id, batch: payload.batch, pushed, failed, gone: gone.length, retry: again.length, recorded },
      'update batch pushed',
    );
  }
  if (finished) log.info({ event: 'update_finished', update: update.id, program: update.program }, 'update finished');
}
