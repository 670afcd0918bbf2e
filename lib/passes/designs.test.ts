// The 13 designs: readable (WCAG AA), told apart at a glance, and with the images Apple asks for.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { WALLET_TYPES } from '../wallet-types';
import { contrastRatio, DESIGNS, designFor, rgb } from './designs';

const designs = Object.values(DESIGNS);

describe('pass designs', () => {
  it('has one design per walletType, each named for its wallet', () => {
    expect(Object.keys(DESIGNS).sort()).toEqual([...WALLET_TYPES].sort());
    for (const walletType of WALLET_TYPES) expect(designFor(walletType).walletType).toBe(walletType);
  });

  it.each(designs.map((d) => [d.walletType, d] as const))('%s meets WCAG AA: text and labels at 4.5:1 or more on the background', (_, design) => {
    expect(contrastRatio(design.foreground, design.background)).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(design.label, design.background)).toBeGreaterThanOrEqual(4.5);
  });

  it('computes contrast as WCAG defines it', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrastRatio('#ffffff', '#ffffff')).toBe(1);
  });

  it('gives every design its own background, text colours, logo text, mark and folder', () => {
    for (const key of ['background', 'logoText', 'mark', 'slug'] as const) {
      expect(new Set(designs.map((d) => d[key])).size, key).toBe(designs.length);
    }
    expect(new Set(designs.map((d) => `${d.background}/${d.foreground}/${d.label}`)).size).toBe(designs.length);
  });

  it('writes colours the way pass.json wants them', () => {
    expect(rgb('#0052ff')).toBe('rgb(0, 82, 255)');
  });

  describe.each(designs.map((d) => [d.walletType, d] as const))('%s images', (_, design) => {
    const image = (file: string) => {
      const bytes = readFileSync(path.join(process.cwd(), 'lib', 'passes', 'assets', design.slug, file));
      return PNG.sync.read(bytes);
    };

    it('has square icons of 29, 58 and 87 px', () => {
      for (const [file, size] of [
        ['icon.png', 29],
        ['icon@2x.png', 58],
        ['icon@3x.png', 87],
      ] as const) {
        const png = image(file);
        expect([png.width, png.height], file).toEqual([size, size]);
      }
    });

    it('has logos within 160x50 at @1x, and exactly 2x and 3x that at @2x and @3x', () => {
      const [one, two, three] = [image('logo.png'), image('logo@2x.png'), image('logo@3x.png')];
      expect(one.width).toBeLessThanOrEqual(160);
      expect(one.height).toBeLessThanOrEqual(50);
      expect([two.width, two.height]).toEqual([one.width * 2, one.height * 2]);
      expect([three.width, three.height]).toEqual([one.width * 3, one.height * 3]);
    });

    it('draws its mark in the label colour: the icon is not blank', () => {
      const png = image('icon@3x.png');
      const label = Number.parseInt(design.label.slice(1), 16);
      const [r, g, b] = [(label >> 16) & 255, (label >> 8) & 255, label & 255];
      let inked = 0;
      for (let i = 0; i < png.data.length; i += 4) {
        if (png.data[i] === r && png.data[i + 1] === g && png.data[i + 2] === b) inked++;
      }
      expect(inked / (png.width * png.height)).toBeGreaterThan(0.05);
    });
  });
});
