// The count of admissions on this device, per program: kept in localStorage, so it survives a
// reload and a closed tab, and stays on this phone (the service's own totals are the console's).
const PREFIX = 'wpc.door.admitted.';

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null; // storage refused (private mode, a policy): the count lives for this page only
  }
}

export function readAdmissions(program: string): number {
  const value = Number(storage()?.getItem(PREFIX + program));
  return Number.isSafeInteger(value) && value > 0 ? value : 0;
}

export function saveAdmissions(program: string, count: number): void {
  try {
    storage()?.setItem(PREFIX + program, String(count));
  } catch {
    // full or refused: the count on screen still moves
  }
}
