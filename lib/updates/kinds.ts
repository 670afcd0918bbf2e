// The names an update is known by: its id and its jobs' kinds, shared by the changes that make an
// update (lib/programs, ./messages.ts) and the fan-out that runs it (./fan-out.ts).
import { randomBytes } from 'node:crypto';

/** Cuts the program's devices into batches (./fan-out.ts). */
export const UPDATE_PLAN_JOB = 'update.plan';
/** Pushes one batch of an update's devices and records the outcomes (./fan-out.ts). */
export const UPDATE_BATCH_JOB = 'update.batch';

/** A new update's id: `upd_` and 96 random bits, so that ids say nothing of how many updates there were. */
export const newUpdateId = () => `upd_${randomBytes(12).toString('base64url')}`;

/** What a message update says, as Google objects show it: the program's name over the text. */
export type UpdateMessage = { header: string; body: string };

export type PlanPayload = { update: string; message?: UpdateMessage };

/** The job that plans an update, enqueued with the change that makes it; a message's text goes with it, for Google's objects. */
export const planJob = (updateId: string, message?: UpdateMessage) => ({
  kind: UPDATE_PLAN_JOB,
  payload: { update: updateId, ...(message ? { message } : {}) } satisfies PlanPayload,
});
