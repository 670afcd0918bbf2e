// The text of a pass's barcode: the /verify URL a phone's camera opens, with, beside the public
// serial, a MAC only this service can make: `${PUBLIC_BASE_URL}/verify?serial=<serial>&c=<mac>`,
// mac = base64url(HMAC-SHA256(barcode key, "check-in:" + serial)) cut to 12 bytes (16 characters).
// The barcode key is derived with HKDF-SHA256 from the download id key (DOWNLOAD_ID_KEY, or the one
// in DATA_DIR): every instance that shares DOWNLOAD_ID_KEY makes and accepts the same codes, and
// the key is never stored, logged or sent. docs/check-in.md says why these choices.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { asSerialNumber, SERIAL_NUMBER_PATTERN, type SerialNumber } from '../passes/ids';

export type BarcodeKey = Buffer & { readonly __brand: 'BarcodeKey' };

/** HKDF's info: this derivation's name, so the same secret never yields this key for another use. */
const KEY_INFO = 'wallet-pass-claim/check-in-barcode/v1';
/** The HMAC's label, as the authentication token's: the key makes nothing else, and stays that way. */
const LABEL = 'check-in:';
/**
 * 96 bits: a forger's chance per guess is 2^-96, each guess a request to the service; and 16
 * characters, not 22, keep Google save links of the longest configuration under 1,800 characters.
 */
export const MAC_BYTES = 12;
/** base64url of MAC_BYTES bytes: 16 characters. */
export const MAC_TEXT_LENGTH = Math.ceil((MAC_BYTES * 4) / 3);
const MAC_TEXT = new RegExp(`^[A-Za-z0-9_-]{${MAC_TEXT_LENGTH}}$`);

/** The barcode key of a download id key. Threat: one leaked derived key must not give download links, nor the reverse. */
export function barcodeKeyOf(downloadIdKey: Buffer): BarcodeKey {
  return Buffer.from(hkdfSync('sha256', downloadIdKey, Buffer.alloc(0), KEY_INFO, 32)) as BarcodeKey;
}

/** The MAC of a serial (base64url, 16 characters). Threat: anyone who has seen a serial printing a code that admits. */
export function barcodeMac(key: BarcodeKey, serialNumber: SerialNumber): string {
  return createHmac('sha256', key)
    .update(LABEL + serialNumber)
    .digest()
    .subarray(0, MAC_BYTES)
    .toString('base64url');
}

/** The barcode's text: a /verify URL (a phone's camera opens the scanner check) carrying the serial and its MAC. */
export function barcodeText(publicBaseUrl: string, serialNumber: string, mac: string): string {
  return `${publicBaseUrl}/verify?serial=${encodeURIComponent(serialNumber)}&c=${mac}`;
}

/**
 * The serial and MAC a scanned text carries, or undefined: a /verify URL (of any origin: the MAC,
 * not the host, is what proves the code) with exactly one `serial` (a UUID) and one `c` of a MAC's
 * shape. A bare serial carries no MAC: undefined.
 */
export function parseBarcode(text: string): { serialNumber: SerialNumber; mac: string } | undefined {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return undefined;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !url.pathname.endsWith('/verify')) return undefined;
  const [serial, ...moreSerials] = url.searchParams.getAll('serial').map((value) => value.toLowerCase());
  const [mac, ...moreMacs] = url.searchParams.getAll('c');
  if (serial === undefined || mac === undefined || moreSerials.length > 0 || moreMacs.length > 0) return undefined;
  if (!SERIAL_NUMBER_PATTERN.test(serial) || !MAC_TEXT.test(mac)) return undefined;
  return { serialNumber: asSerialNumber(serial), mac };
}

/**
 * Whether `mac` is the serial's MAC. Threat: a comparison that stops at the first wrong byte lets a
 * forger learn the MAC a byte at a time from response times; timingSafeEqual takes the same time whatever matches.
 */
export function macMatches(key: BarcodeKey, serialNumber: SerialNumber, mac: string): boolean {
  // The texts, not their decoded bytes: base64url decoders forgive some variants (padding, a
  // standard-alphabet character). An altered text is refused, whatever it decodes to.
  const expected = Buffer.from(barcodeMac(key, serialNumber), 'latin1');
  const given = Buffer.from(mac, 'latin1');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The serial of a genuine barcode text, or undefined for a made-up, altered or bare one. */
export function verifyBarcode(key: BarcodeKey, text: string): SerialNumber | undefined {
  const parsed = parseBarcode(text);
  return parsed && macMatches(key, parsed.serialNumber, parsed.mac) ? parsed.serialNumber : undefined;
}
