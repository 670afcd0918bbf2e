// How many fields of each group Wallet shows, apart from the zod schema (schema.ts re-exports it):
// the pass picture of the claim pages reads it, and should not bring zod into their JavaScript.
import type { FieldGroup, PassStyle } from './schema';

/**
 * How many fields of each group Wallet shows, per style (Apple's "Pass Design and Creation"
 * layouts; more are dropped from the front without a word). Store cards and coupons show at most
 * four secondary and auxiliary fields together. The back has no such limit; 20 keeps it readable.
 */
export const FIELD_LIMITS: Record<PassStyle, Record<FieldGroup, number> & { secondaryAndAuxiliary: number }> = {
  generic: { header: 3, primary: 1, secondary: 4, auxiliary: 4, back: 20, secondaryAndAuxiliary: 8 },
  eventTicket: { header: 3, primary: 1, secondary: 4, auxiliary: 4, back: 20, secondaryAndAuxiliary: 8 },
  storeCard: { header: 3, primary: 1, secondary: 4, auxiliary: 4, back: 20, secondaryAndAuxiliary: 4 },
  coupon: { header: 3, primary: 1, secondary: 4, auxiliary: 4, back: 20, secondaryAndAuxiliary: 4 },
};
