// The fan-out of program changes before updates (lib/updates) carried them: kept so that a
// `program.changed` job enqueued by an earlier version still runs after an upgrade; nothing
// enqueues it now. A change to what a program's passes show reaches every pass. The change itself gave each pass a
// new version and enqueued `program.changed` in the same statement (lib/db/programs.ts); this
// handler pages through the program's passes (keyset, a page at a time, never all at once) and
// enqueues each one's `pass.changed`, whose handler pushes its devices and syncs its Google object
// (lib/passes/change-jobs.ts). A handler that dies mid-way runs again from the start: a pass may
// then be pushed twice, which is harmless (the device finds nothing newer), and none is skipped.
import { serialsOfProgram } from '../db/programs';
import type { Store } from '../db/store';
import { PASS_CHANGED_JOB } from '../passes/lifecycle';
import type { TaskList } from '../queue';

export const PROGRAM_CHANGED_JOB = 'program.changed';

/** Passes read and enqueued per statement. */
const PAGE = 1000;

export type ProgramChangeDeps = { store: Pick<Store, 'sql' | 'jobs'> };

export const programTasks = (deps: ProgramChangeDeps): TaskList => ({
  [PROGRAM_CHANGED_JOB]: (payload: { program: string }) => programChanged(deps, payload.program),
});

async function programChanged(deps: ProgramChangeDeps, program: string): Promise<void> {
  for (let after = ''; ; ) {
    const serials = await serialsOfProgram(deps.store.sql, program, after, PAGE);
    if (serials.length === 0) return;
    await deps.store.jobs.enqueue(serials.map((serialNumber) => ({ kind: PASS_CHANGED_JOB, payload: { serialNumber } })));
    after = serials[serials.length - 1] as string;
  }
}
