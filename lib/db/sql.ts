// What the table modules share: the one-statement interface they run on, and the conversions of
// what drivers hand back.
import type { Database } from './client';

/** One parameterized statement: what the storage modules need of a database (`store.sql`, behind the availability guard). */
export type Queryable = Pick<Database, 'query'>;

/** Drivers return timestamptz as Date (node-postgres, PGlite) or as text; the table modules return Date. */
export const asDate = (value: Date | string): Date => (value instanceof Date ? value : new Date(value));

/**
 * The row of a statement that always answers exactly one (an aggregate, `select exists`,
 * `insert … returning`). None means the statement is wrong, not the data: it throws.
 */
export function onlyRow<Row>(rows: Row[], statement: string): Row {
  const [row] = rows;
  if (rows.length !== 1 || row === undefined) throw new Error(`${statement} answered ${rows.length} rows, not one`);
  return row;
}

export const asOptionalDate = (value: Date | string | null | undefined): Date | null => (value === null || value === undefined ? null : asDate(value));

/**
 * A timestamptz column as whole microseconds since the epoch (text): the form a pass's version
 * takes. A JavaScript Date would drop the microseconds PostgreSQL keeps, and two versions within
 * one millisecond would look alike.
 */
export const VERSION_OF = (column: string) => `(extract(epoch from ${column}) * 1000000)::bigint::text`;

/** The instant of a version given as microseconds text (a placeholder such as `$2`). */
export const AT_VERSION = (param: string) => `(timestamptz 'epoch' + ${param}::bigint * interval '1 microsecond')`;
