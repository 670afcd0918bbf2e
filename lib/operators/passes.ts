// The operator's view of passes: a filtered, paged list, one pass, and the statistics.
import { checkInsByDay } from '../db/check-ins';
import { findOperatorPass, listPasses, type OperatorPass, type PassFilter, passStats } from '../db/passes';
import { registrationsByDay } from '../db/registrations';
import type { Store } from '../db/store';
import { AppError } from '../errors';
import { asSerialNumber } from '../passes/ids';

/** What the operator's view of passes needs: the database. */
export type OperatorPassesDeps = { store: Pick<Store, 'sql'> };

export type PassPage = { passes: OperatorPass[]; nextCursor: string | null };

/**
 * The cursor is opaque to clients: base64url of the last pass's position. It only ever selects
 * passes after that position, so a forged one can show nothing a filter could not.
 */
const encodeCursor = (position: { claimedAt: string; serialNumber: string }) =>
  Buffer.from(JSON.stringify([position.claimedAt, position.serialNumber])).toString('base64url');

/**
 * A timestamptz as PostgreSQL prints it, every field in its range (the day in its month's):
 * anything else would fail in SQL rather than as a 400.
 */
const TIMESTAMP_TEXT = /^(?<year>\d{4})-(?<month>\d\d)-(?<day>\d\d) (?<hour>[01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?[+-](0\d|1[0-5])(:[0-5]\d){0,2}$/;

function isTimestampText(text: string): boolean {
  const fields = TIMESTAMP_TEXT.exec(text)?.groups;
  if (!fields) return false;
  const [year, month, day] = [Number(fields.year), Number(fields.month), Number(fields.day)];
  // Date.UTC rolls 2026-02-30 over into March: a day that exists comes back as itself.
  const date = new Date(Date.UTC(year, month - 1, day));
  return year >= 1 && month >= 1 && month <= 12 && date.getUTCDate() === day && date.getUTCMonth() === month - 1;
}

function decodeCursor(cursor: string): { claimedAt: string; serialNumber: string } {
  try {
    const [claimedAt, serialNumber] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof claimedAt === 'string' && isTimestampText(claimedAt) && typeof serialNumber === 'string' && serialNumber.length <= 100) {
      return { claimedAt, serialNumber };
    }
  } catch {
    // answered below
  }
  throw new AppError('invalid_request', 'cursor is not a cursor this service gave out', {
    fields: [{ field: 'cursor', message: 'is not a cursor this service gave out' }],
  });
}

export async function listOperatorPasses(services: OperatorPassesDeps, query: PassFilter & { cursor?: string; limit: number }): Promise<PassPage> {
  const after = query.cursor ? decodeCursor(query.cursor) : undefined;
  // One more than asked tells whether there is a next page.
  const rows = await listPasses(services.store.sql, query, after, query.limit + 1);
  const page = rows.slice(0, query.limit);
  const more = rows.length > query.limit;
  const last = page.at(-1);
  return { passes: page.map((row) => row.pass), nextCursor: more && last ? encodeCursor(last.position) : null };
}

export async function getOperatorPass(services: OperatorPassesDeps, serialNumber: string): Promise<OperatorPass> {
  const pass = await findOperatorPass(services.store.sql, asSerialNumber(serialNumber));
  if (!pass) throw new AppError('pass_not_found', 'No pass has this serial number.');
  return pass;
}

export const STATS_DAYS = 30;

export type Stats = {
  passes: number;
  active: number;
  voided: number;
  devicesRegistered: number;
  claimsPerDay: { date: string; count: number }[];
  /** Admissions at the door (lib/check-in), per UTC day as claimsPerDay. */
  checkInsPerDay: { date: string; count: number }[];
  /** Device registrations made, per UTC day as claimsPerDay (lib/db/registrations.ts counts them as they happen). */
  installsPerDay: { date: string; count: number }[];
  /** Device registrations ended (the device's, APNs calling its token gone, DEVICES_PER_PASS), per UTC day. */
  uninstallsPerDay: { date: string; count: number }[];
};

/** Totals, and claims, check-ins, installs and uninstalls on each (of every program, or of one) of the last 30 UTC days (today included, oldest first, zeros too). */
export async function getStats(services: OperatorPassesDeps, now = new Date(), program?: string): Promise<Stats> {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const first = new Date(today - (STATS_DAYS - 1) * 86_400_000);
  const [stats, checkIns, registrations] = await Promise.all([
    passStats(services.store.sql, first, program),
    checkInsByDay(services.store.sql, first, program),
    registrationsByDay(services.store.sql, first, program),
  ]);
  const perDay = (counts: Map<string, number>) =>
    Array.from({ length: STATS_DAYS }, (_, i) => {
      const date = new Date(first.getTime() + i * 86_400_000).toISOString().slice(0, 10);
      return { date, count: counts.get(date) ?? 0 };
    });
  return {
    passes: stats.passes,
    active: stats.active,
    voided: stats.voided,
    devicesRegistered: stats.devicesRegistered,
    claimsPerDay: perDay(stats.claimsByDay),
    checkInsPerDay: perDay(checkIns),
    installsPerDay: perDay(registrations.installs),
    uninstallsPerDay: perDay(registrations.uninstalls),
  };
}
