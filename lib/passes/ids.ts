// The two names of a pass, kept apart by type. The serial number is public (printed on the pass,
// in its QR code, in webhook events); the download id is the bearer secret of its file. A value
// of one can never be passed where the other is expected: each is branded where it is made (a new
// pass, a derivation) or where it comes in (a request), by the functions below.
export type SerialNumber = string & { readonly __brand: 'SerialNumber' };
export type DownloadId = string & { readonly __brand: 'DownloadId' };

/** The shape of every serial number: a UUID, in either case as typed or scanned (the service makes them lower-case). */
export const SERIAL_NUMBER_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** A serial number as it comes in from a request or the database. */
export const asSerialNumber = (text: string): SerialNumber => text as SerialNumber;

/** A download id as it comes in from a request (`/download?pass=`). */
export const asDownloadId = (text: string): DownloadId => text as DownloadId;
