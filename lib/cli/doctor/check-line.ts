// One line of the doctor's report: `✓ <what>`, or `✗ <what>: <problem>. Fix: <how>`.

export type CheckLine = { ok: true; what: string } | { ok: false; what: string; problem: string; fix: string; warning?: boolean };

export type FailedLine = Extract<CheckLine, { ok: false }>;

export const ok = (what: string): CheckLine => ({ ok: true, what });
export const bad = (what: string, problem: string, fix: string, warning = false): FailedLine => ({ ok: false, what, problem, fix, warning });

export function formatLine(line: CheckLine): string {
  if (line.ok) return `✓ ${line.what}`;
  const note = line.warning ? ' (a warning: it fails the doctor only with --production)' : '';
  return `✗ ${line.what}: ${line.problem}. Fix: ${line.fix}${note}`;
}

/** A warning (the development certificates) fails only with --production. */
export function isFailure(line: CheckLine, production = false): boolean {
  return !line.ok && (!line.warning || production);
}
