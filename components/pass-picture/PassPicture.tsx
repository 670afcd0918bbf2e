'use client';
// A program's pass drawn as Apple Wallet lays it out (Apple's "Pass Design and Creation": the
// logo, logo text and header fields on top; the primary fields, over the strip image where the
// style has one; the secondary and auxiliary rows; the barcode at the foot; the back as a list).
// The claim page (/p/<slug>) shows it with a sample holder, the console's editor as a design is
// typed, so it takes a design that may be half edited: any list may be missing.
//
// No style attribute is written (the pages' style-src refuses them): the design's colours are
// custom properties set through the DOM once hydrated, which the policy allows. A server-rendered
// picture takes them from an enclosing rule instead (the claim page writes one with the page's
// nonce), falling back to the default design's colours.
import { useId } from 'react';
import { fillPlaceholders } from '@/lib/programs/design';
import { FIELD_LIMITS } from '@/lib/programs/field-limits';
import type { BarcodeFormat, Design, DesignField, PassStyle } from '@/lib/programs/schema';
import { passColours } from './colours';
import styles from './PassPicture.module.css';

export type PassPictureImages = Partial<Record<'logo' | 'icon' | 'strip' | 'thumbnail' | 'background', string>>;

export type PassPictureProps = {
  design: Design;
  /** The program's name: what the pass says where the design names no organisation or logo text. */
  name: string;
  images?: PassPictureImages;
  /** What the placeholders of the fields' values are filled with. */
  sample: { publicKey: string; serialNumber: string; claimedAt: string; walletType: string };
  side?: 'front' | 'back' | 'both';
};

type Fields = Design['fields'];
type Sample = PassPictureProps['sample'];

const STYLE_NAMES: Record<PassStyle, string> = {
  generic: 'generic pass',
  storeCard: 'store card',
  eventTicket: 'event ticket',
  coupon: 'coupon',
};

export const BARCODE_NAMES: Record<BarcodeFormat, string> = {
  qr: 'QR code',
  pdf417: 'PDF417 barcode',
  aztec: 'Aztec code',
  code128: 'Code 128 barcode',
};

function fill(value: string, sample: Sample): string {
  const claimedAt = new Date(sample.claimedAt);
  // A sample date that does not parse is shown as given, rather than throw while a page renders.
  if (Number.isNaN(claimedAt.getTime())) return fillPlaceholders(value.replaceAll('{claimedAt}', sample.claimedAt), { ...sample, claimedAt: new Date(0) });
  return fillPlaceholders(value, { ...sample, claimedAt });
}

/** The fields of a group Wallet shows on the front: it drops the rest without a word. */
function shown(fields: Partial<Fields> | undefined, style: PassStyle) {
  const limits = FIELD_LIMITS[style];
  const list = (group: keyof Fields) => (Array.isArray(fields?.[group]) ? (fields[group] as DesignField[]) : []);
  const secondary = list('secondary').slice(0, limits.secondary);
  const auxiliary = list('auxiliary').slice(0, Math.min(limits.auxiliary, Math.max(0, limits.secondaryAndAuxiliary - secondary.length)));
  return {
    header: list('header').slice(0, limits.header),
    primary: list('primary').slice(0, limits.primary),
    secondary,
    auxiliary,
    back: list('back'),
  };
}

/** Unique keys for a list of fields: a design being edited may hold one key twice for a moment. */
function keyed(fields: DesignField[]): [string, DesignField][] {
  const seen = new Map<string, number>();
  return fields.map((field) => {
    const count = seen.get(field.key) ?? 0;
    seen.set(field.key, count + 1);
    return [count === 0 ? field.key : `${field.key}~${count}`, field];
  });
}

/** An image of the program's: object URLs in the editor, served files on pages, so no next/image. */
function Picture({ src, className }: { src: string; className: string | undefined }) {
  // biome-ignore lint/performance/noImgElement: the sources are blob: URLs or the API's image files, not for Next's optimiser
  return <img className={className} src={src} alt="" />;
}

function Field({ field, sample, className, labelBelow = false }: { field: DesignField; sample: Sample; className?: string; labelBelow?: boolean }) {
  const label = field.label ? <span className={styles.label}>{field.label}</span> : null;
  return (
    <div className={`${styles.field} ${className ?? ''}`}>
      {labelBelow ? null : label}
      <span className={styles.value}>{fill(field.value ?? '', sample)}</span>
      {labelBelow ? label : null}
    </div>
  );
}

function Row({ fields, sample, className }: { fields: DesignField[]; sample: Sample; className?: string }) {
  if (fields.length === 0) return null;
  return (
    <div className={`${styles.row} ${className ?? ''}`}>
      {keyed(fields).map(([key, field]) => (
        <Field key={key} field={field} sample={sample} />
      ))}
    </div>
  );
}

function Barcode({ format, serialNumber }: { format: BarcodeFormat; serialNumber: string }) {
  const name = BARCODE_NAMES[format] ?? BARCODE_NAMES.qr;
  return (
    <div className={styles.barcode}>
      <div className={`${styles.code} ${styles[format] ?? styles.qr}`} role="img" aria-label={`${name} (drawn in its place; the real one is on the pass)`} />
      <span className={styles.altText}>{serialNumber}</span>
    </div>
  );
}

export function PassPicture({ design, name, images = {}, sample, side = 'both' }: PassPictureProps) {
  const captionId = useId();
  const style: PassStyle = design?.style && design.style in FIELD_LIMITS ? design.style : 'generic';
  const fields = shown(design?.fields, style);
  const organization = design?.organizationName || name;
  const logoText = design?.logoText ?? (images.logo ? '' : name);
  const format: BarcodeFormat = design?.barcode && design.barcode in BARCODE_NAMES ? design.barcode : 'qr';
  const colours = passColours(design ?? {});

  // Which images the style shows (Apple's layouts): a strip behind the primary fields for store
  // cards, coupons and event tickets; a thumbnail beside them for generic passes and event tickets
  // without a strip; a blurred background only for event tickets without a strip.
  const strip = style !== 'generic' ? images.strip : undefined;
  const thumbnail = style === 'generic' || (style === 'eventTicket' && !strip) ? images.thumbnail : undefined;
  const background = style === 'eventTicket' && !strip ? images.background : undefined;
  // Store cards and coupons put the primary field's label under its value, and their secondary
  // and auxiliary fields on one row.
  const labelBelow = style === 'storeCard' || style === 'coupon';

  const front = (
    <div className={styles.side}>
      <p className={styles.sideName}>Front</p>
      <div className={`${styles.pass} ${styles[style]}`}>
        {background ? <Picture className={styles.background} src={background} /> : null}
        <div className={styles.top}>
          {images.logo ? <Picture className={styles.logo} src={images.logo} /> : null}
          {logoText ? <span className={styles.logoText}>{logoText}</span> : null}
          {fields.header.length > 0 ? (
            <div className={styles.header}>
              {keyed(fields.header).map(([key, field]) => (
                <Field key={key} field={field} sample={sample} className={styles.headerField} />
              ))}
            </div>
          ) : null}
        </div>
        <div className={`${styles.primaryArea} ${strip ? styles.onStrip : ''}`}>
          {strip ? <Picture className={styles.strip} src={strip} /> : null}
          <div className={styles.primaryFields}>
            {keyed(fields.primary).map(([key, field]) => (
              <Field key={key} field={field} sample={sample} className={styles.primary} labelBelow={labelBelow} />
            ))}
          </div>
          {thumbnail ? <Picture className={styles.thumbnail} src={thumbnail} /> : null}
        </div>
        {labelBelow ? (
          <Row fields={[...fields.secondary, ...fields.auxiliary]} sample={sample} />
        ) : (
          <>
            <Row fields={fields.secondary} sample={sample} />
            <Row fields={fields.auxiliary} sample={sample} className={styles.auxiliary} />
          </>
        )}
        <Barcode format={format} serialNumber={sample.serialNumber} />
      </div>
    </div>
  );

  const back = (
    <div className={styles.side}>
      <p className={styles.sideName}>Back</p>
      <div className={styles.back}>
        {fields.back.length > 0 ? (
          <dl className={styles.backList}>
            {keyed(fields.back).map(([key, field]) => (
              <div key={key} className={styles.backField}>
                <dt>{field.label}</dt>
                <dd>{fill(field.value ?? '', sample)}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <p className={styles.empty}>Nothing on the back.</p>
        )}
      </div>
    </div>
  );

  return (
    <figure
      className={styles.figure}
      aria-labelledby={captionId}
      // The design's colours (see the top of this file): set on the element, never as an attribute.
      ref={(node) => {
        if (!node) return;
        for (const property of ['--pass-bg', '--pass-fg', '--pass-label']) {
          const colour = colours[property];
          if (colour) node.style.setProperty(property, colour);
          else node.style.removeProperty(property);
        }
      }}
    >
      <figcaption id={captionId} className="visually-hidden">
        {`The ${organization} ${STYLE_NAMES[style]} as Apple Wallet shows it`}
        {side === 'both' ? ', front and back' : side === 'back' ? ', its back' : ''}
        {`, with a ${BARCODE_NAMES[format]}.`}
      </figcaption>
      {side !== 'back' ? front : null}
      {side !== 'front' ? back : null}
    </figure>
  );
}
