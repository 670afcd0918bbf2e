// Updates as operators see them: a message to every holder of a program, and the records of
// updates (program changes and messages) with their progress. The fan-out itself is ./fan-out.ts.
import { changeProgram, findProgram } from '../db/programs';
import type { Store } from '../db/store';
import { findUpdate, listUpdates, type Update } from '../db/updates';
import { AppError } from '../errors';
import type { Logger } from '../log';
import { type ProgramDirectory, programNotFound } from '../programs/programs';
import { newUpdateId, planJob } from './kinds';

export type UpdatesDeps = { store: Pick<Store, 'sql' | 'jobs'>; log: Logger; programs: Pick<ProgramDirectory, 'forget'> };

/** The longest message, in characters: what a lock-screen notification shows whole. */
export const MESSAGE_MAX_LENGTH = 250;

/** Updates listed at most. */
const LIST_LIMIT = 100;

export const updateNotFound = () => new AppError('update_not_found', 'No update has this id.');

/** Why a program takes no message: unknown or draft (not found), closed. */
function refuse(program: { status: string; name: string } | undefined): never {
  if (!program || program.status === 'draft') throw programNotFound();
  throw new AppError('program_closed', `“${program.name}” is closed: its holders get no more messages.`);
}

/**
 * Sends a message to every holder of a live program: in one statement, the program keeps the
 * text (each active pass shows it on its back, with a changeMessage, from its next version), every
 * pass gets a new version, and the update is made with its planning job. A closed or draft program
 * takes none, and nothing is sent. A live program outside its claim window still does: its
 * holders are still there.
 */
export async function sendMessage(deps: UpdatesDeps, slug: string, text: string): Promise<{ id: string; passes: number; devices: number }> {
  if (text.trim() === '') throw new AppError('invalid_request', 'text must not be empty', { fields: [{ field: 'text', message: 'must not be empty' }] });
  const before = await findProgram(deps.store.sql, slug);
  if (before?.status !== 'live') refuse(before);
  const id = newUpdateId();
  const after = await changeProgram(
    deps.store.jobs,
    slug,
    { message: text },
    { touchPasses: true, jobs: [planJob(id, { header: before.name, body: text })], update: { id, kind: 'message', activeOnly: true }, onlyLive: true },
  );
  // Closed (or gone) between the read and the statement: the statement did nothing.
  if (!after?.update) refuse(await findProgram(deps.store.sql, slug));
  deps.programs.forget(slug);
  deps.log.info(
    { event: 'program_message', program: slug, update: id, passes: after.update.passes, devices: after.update.devices },
    'message sent to a program',
  );
  return { id, passes: after.update.passes, devices: after.update.devices };
}

export async function getUpdate(deps: Pick<UpdatesDeps, 'store'>, id: string): Promise<Update> {
  const update = await findUpdate(deps.store.sql, id);
  if (!update) throw updateNotFound();
  return update;
}

/** The newest updates first (of one program, when given), at most LIST_LIMIT. */
export function getUpdates(deps: Pick<UpdatesDeps, 'store'>, filter: { program?: string } = {}): Promise<Update[]> {
  return listUpdates(deps.store.sql, filter, LIST_LIMIT);
}
