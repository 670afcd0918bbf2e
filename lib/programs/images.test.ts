// The sizes an upload is made into, at the edges: extreme aspect ratios keep at least one pixel
// a side and exact @2x/@3x multiples; each kind's box follows Apple's sizes and the pass style.
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { imageBox, pointSize, processImage } from './images';

describe('program image sizes', () => {
  it('fits inside boxes by the longer side, never below one point', () => {
    expect(pointSize(imageBox('logo', 'generic'), 400, 200)).toEqual({ width: 100, height: 50 });
    expect(pointSize(imageBox('logo', 'generic'), 10_000, 2)).toEqual({ width: 160, height: 1 });
    expect(pointSize(imageBox('thumbnail', 'generic'), 1, 10_000)).toEqual({ width: 1, height: 90 });
    expect(pointSize(imageBox('thumbnail', 'generic'), 30, 30)).toEqual({ width: 90, height: 90 });
  });

  it('covers and contains at the box’s own size; the strip’s height follows the style', () => {
    expect(pointSize(imageBox('background', 'eventTicket'), 5000, 10)).toEqual({ width: 180, height: 220 });
    expect(pointSize(imageBox('icon', 'coupon'), 5000, 10)).toEqual({ width: 29, height: 29 });
    expect(['generic', 'eventTicket', 'storeCard', 'coupon'].map((style) => imageBox('strip', style as never).height)).toEqual([123, 98, 144, 144]);
  });

  it('makes a 10,000 x 2 logo into 160x1, 320x2 and 480x3 PNGs', async () => {
    const wide = await sharp({ create: { width: 10_000, height: 2, channels: 3, background: '#abcdef' } })
      .png()
      .toBuffer();
    const files = await processImage({ type: 'image/png', bytes: wide }, 'logo', 'generic');
    expect(files.map((f) => `${f.file} ${f.width}x${f.height}`)).toEqual(['logo.png 160x1', 'logo@2x.png 320x2', 'logo@3x.png 480x3']);
    for (const file of files) expect((await sharp(file.bytes).metadata()).width).toBe(file.width);
  });
});
