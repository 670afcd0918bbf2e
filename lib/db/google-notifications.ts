// The `google_notifications` table: the notifying messages (TEXT_AND_NOTIFY) each pass's Google
// object had in the last 24 hours, and every statement on it. Google notifies a pass's holder at
// most 3 times in 24 hours and refuses a 4th with a quota error; the service asks here first, and
// one statement takes a notification or says no. It is an upsert on the pass's row: on
// PostgreSQL, ON CONFLICT DO UPDATE locks the row and evaluates its WHERE on the latest version,
// so two instances messaging one pass at once cannot both take the 3rd.
import type { SerialNumber } from '../passes/ids';
import { onlyRow, type Queryable } from './sql';

/** Google: "a maximum of 3 notification-triggering messages" per pass "within a 24-hour period". */
export const GOOGLE_NOTIFICATIONS_PER_DAY = 3;
const DAY_MS = 24 * 3600 * 1000;

/**
 * Takes one of the pass's notifications for message `messageId` at `now`: true when it may be
 * sent notifying (fewer than 3 in the 24 hours before `now`, or this message already took one: a
 * retry of its job), false when it must go as plain text.
 */
export async function takeGoogleNotification(db: Queryable, serialNumber: SerialNumber, messageId: string, now: Date): Promise<boolean> {
  const rows = await db.query<{ notify: boolean }>(
    `with entry as (select jsonb_build_array(jsonb_build_object('id', $2::text, 'at', $3::bigint)) as value),
     taken as (
       insert into google_notifications as g (serial_number, notified)
       select $1, entry.value from entry
       on conflict (serial_number) do update
         set notified = (
           select coalesce(jsonb_agg(e), '[]'::jsonb) from jsonb_array_elements(g.notified) e where (e ->> 'at')::bigint > $4::bigint
         ) || excluded.notified
         where (select count(*) from jsonb_array_elements(g.notified) e where (e ->> 'at')::bigint > $4::bigint) < $5
           and not g.notified @> jsonb_build_array(jsonb_build_object('id', $2::text))
       returning 1
     )
     select exists (select 1 from taken)
       or exists (
         select 1 from google_notifications, jsonb_array_elements(notified) e
         where serial_number = $1 and e ->> 'id' = $2 and (e ->> 'at')::bigint > $4::bigint
       ) as notify`,
    [serialNumber, messageId, now.getTime(), now.getTime() - DAY_MS, GOOGLE_NOTIFICATIONS_PER_DAY],
  );
  return onlyRow(rows, 'takeGoogleNotification').notify;
}
