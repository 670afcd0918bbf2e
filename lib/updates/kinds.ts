// The names an update is known by: its id and its jobs' kinds, shared by the changes that make an
// update (lib/programs, ./messages.ts) and the fan-out that runs it (./fan-out.ts).
import { randomBytes } from 'node:crypto';

/** Cuts the program's devices into batches (./fan-out.ts). */
export const UPDATE_PLAN_JOB = 'update.plan';
/** Pushes one batch of an update's devices and records the outcomes (./fan-out.ts). */
export const UPDATE_BATCH_JOB = 'update.batch';

/** A new update's id: `upd_` and 96 random bits, so that ids say nothing of how many updates there were. */
export const newUpdateId = () => `upd_${randomBytes(12).toString('base64url')}`;

/** The job that plans an update, enqueued with the change that makes it. */
export const planJob = (updateId: string) => ({ kind: UPDATE_PLAN_JOB, payload: { update: updateId } });
