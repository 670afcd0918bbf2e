// The pass picture rendered as the server renders it: what a visitor reads on it.
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { defaultDesign } from '@/lib/programs/design';
import { type Design, designSchema } from '@/lib/programs/schema';
import { PassPicture, type PassPictureProps } from './PassPicture';

const sample = {
  publicKey: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
  serialNumber: 'SAMPLE-0001',
  claimedAt: '2026-11-21T10:00:00Z',
  walletType: 'Phantom',
};
const render = (props: Partial<PassPictureProps> & { design: Design }) =>
  renderToStaticMarkup(createElement(PassPicture, { name: 'Gold Members', sample, ...props }));
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('PassPicture', () => {
  it('draws the default design with its placeholders filled in, front and back, in a captioned figure', () => {
    const html = render({ design: defaultDesign() });
    expect(html).toMatch(/^<figure[^>]*aria-labelledby="([^"]+)"/);
    expect(text(html)).toContain('The Gold Members generic pass as Apple Wallet shows it, front and back, with a QR code.');
    expect(text(html)).toContain('Holder 7xKX…gAsU');
    expect(text(html)).toContain('Claimed 21 Nov 2026');
    expect(text(html)).toContain(`Wallet address ${sample.publicKey}`);
    expect(html).toContain('role="img" aria-label="QR code');
    expect(text(html)).toContain('Front');
    expect(text(html)).toContain('Back');
  });

  it('shows only the side asked for', () => {
    expect(text(render({ design: defaultDesign(), side: 'front' }))).not.toContain('Wallet address');
    expect(text(render({ design: defaultDesign(), side: 'back' }))).not.toContain('Holder');
  });

  it('uses the program name where the design names no organisation or logo text, and the design’s where it does', () => {
    expect(text(render({ design: defaultDesign() }))).toContain('Gold Members');
    const design = designSchema.parse({ organizationName: 'Acme', logoText: 'ACME CLUB', barcode: 'pdf417' });
    const html = text(render({ design }));
    expect(html).toContain('The Acme generic pass');
    expect(html).toContain('ACME CLUB');
    expect(html).toContain('PDF417 barcode');
  });

  it('shows the strip on a store card and the thumbnail on a generic pass, never the other', () => {
    const images = { strip: '/strip.png', thumbnail: '/thumb.png', logo: '/logo.png' };
    const card = render({ design: designSchema.parse({ style: 'storeCard' }), images });
    expect(card).toContain('src="/strip.png"');
    expect(card).not.toContain('src="/thumb.png"');
    const generic = render({ design: designSchema.parse({ style: 'generic' }), images });
    expect(generic).toContain('src="/thumb.png"');
    expect(generic).not.toContain('src="/strip.png"');
    expect(generic).toContain('src="/logo.png"');
  });

  it('leaves off the front the fields Wallet would drop, as an editor may hand them over', () => {
    const field = (key: string) => ({ key, label: key, value: `${key}-value` });
    const base = defaultDesign();
    const design: Design = {
      ...base,
      style: 'coupon',
      fields: { ...base.fields, secondary: ['s1', 's2', 's3'].map(field), auxiliary: ['a1', 'a2'].map(field) },
    };
    const html = text(render({ design }));
    expect(html).toContain('a1-value');
    expect(html).not.toContain('a2-value');
  });

  it('takes a half-edited design: missing lists, a duplicated key, an unknown style', () => {
    const design = {
      style: 'hologram',
      fields: {
        primary: [
          { key: 'a', label: 'A', value: '{walletType}' },
          { key: 'a', label: 'B', value: 'x' },
        ],
      },
    } as unknown as Design;
    const html = text(render({ design }));
    expect(html).toContain('A Phantom');
    expect(html).toContain('Nothing on the back.');
  });
});
