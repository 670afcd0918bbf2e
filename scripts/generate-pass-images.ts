// Renders every design's icon and logo PNGs into lib/passes/assets/<slug>/ at the sizes Apple
// asks for: icon 29/58/87 px, logo 160x50 @1x/@2x/@3x. Run `npm run assets:passes` after changing
// a design; the outputs are committed. Shapes are signed distance functions, supersampled 4x per
// pixel for smooth edges, so no drawing library or font is needed.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PNG } from 'pngjs';
import { DESIGNS, type Mark, type PassDesign } from '../lib/passes/designs';

const OUT = path.join(process.cwd(), 'lib', 'passes', 'assets');
const SUPERSAMPLE = 4;

/** Signed distance (negative inside) from point (x, y) in [-1, 1]² to the mark's outline. */
const SHAPES: Record<Mark, (x: number, y: number) => number> = {
  ring: (x, y) => Math.abs(Math.hypot(x, y) - 0.62) - 0.16,
  disc: (x, y) => Math.hypot(x, y) - 0.75,
  diamond: (x, y) => (Math.abs(x) + Math.abs(y) - 0.85) / Math.SQRT2,
  hexagon: (x, y) => {
    const [ax, ay] = [Math.abs(x), Math.abs(y)];
    return Math.max(ax * 0.866 + ay * 0.5, ay) - 0.72;
  },
  triangle: (x, y) => Math.max(y - 0.55, 0.866 * Math.abs(x) - 0.5 * y - 0.42), // apex up (y grows downwards)
  square: (x, y) => {
    const [dx, dy] = [Math.abs(x) - 0.5, Math.abs(y) - 0.5];
    return Math.hypot(Math.max(dx, 0), Math.max(dy, 0)) + Math.min(Math.max(dx, dy), 0) - 0.2;
  },
  bars: (x, y) => {
    const bar = (cy: number) => Math.max(Math.abs(x) - 0.75, Math.abs(y - cy) - 0.13);
    return Math.min(bar(-0.5), bar(0), bar(0.5));
  },
  cross: (x, y) => Math.min(Math.max(Math.abs(x) - 0.2, Math.abs(y) - 0.8), Math.max(Math.abs(x) - 0.8, Math.abs(y) - 0.2)),
  chevron: (x, y) => Math.abs(Math.abs(x) * 0.9 + y * 0.9 - 0.2) - 0.2 + Math.max(0, Math.abs(x) - 0.75),
  dots: (x, y) => {
    const dot = (cx: number, cy: number) => Math.hypot(x - cx, y - cy) - 0.3;
    return Math.min(dot(-0.4, -0.4), dot(0.4, -0.4), dot(-0.4, 0.4), dot(0.4, 0.4));
  },
  arc: (x, y) => Math.max(Math.abs(Math.hypot(x, y + 0.25) - 0.55) - 0.17, -(y + 0.25) - 0.05),
  star: (x, y) => {
    // Five points. Fold the angle into the sector between an outer tip (radius 0.9) and the next
    // inner corner (radius 0.38); inside is the centre's side of the edge joining them.
    const sector = Math.PI / 5;
    const a = ((Math.atan2(x, -y) % (2 * sector)) + 2 * sector) % (2 * sector); // 0 at a tip; one tip points up
    const phi = a <= sector ? a : 2 * sector - a;
    const r = Math.hypot(x, y);
    const [ox, oy] = [0.9, 0];
    const [ix, iy] = [0.38 * Math.cos(sector), 0.38 * Math.sin(sector)];
    const [px, py] = [r * Math.cos(phi), r * Math.sin(phi)];
    return -((ix - ox) * (py - oy) - (iy - oy) * (px - ox));
  },
  // Flat top, straight sides, tapering to a point at the bottom.
  shield: (x, y) => Math.max(-0.75 - y, Math.abs(x) - 0.65, Math.abs(x) - (0.65 * (0.85 - y)) / 0.75),
};

type Rgb = [number, number, number];
const hex = (h: string): Rgb => {
  const n = Number.parseInt(h.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
};

/** Draws the mark in `ink` over `paper` (or transparency) filling `share` of the `size`-pixel square image. */
function draw(png: PNG, size: number, share: number, mark: Mark, ink: Rgb, paper: Rgb | null): void {
  const shape = SHAPES[mark];
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let covered = 0;
      for (let sy = 0; sy < SUPERSAMPLE; sy++) {
        for (let sx = 0; sx < SUPERSAMPLE; sx++) {
          const x = ((px + (sx + 0.5) / SUPERSAMPLE) / size) * 2 - 1;
          const y = ((py + (sy + 0.5) / SUPERSAMPLE) / size) * 2 - 1;
          if (shape(x / share, y / share) <= 0) covered++;
        }
      }
      const alpha = covered / SUPERSAMPLE ** 2;
      const i = (png.width * py + px) * 4;
      if (paper) {
        for (let c = 0; c < 3; c++) png.data[i + c] = Math.round(paper[c]! * (1 - alpha) + ink[c]! * alpha);
        png.data[i + 3] = 255;
      } else {
        for (let c = 0; c < 3; c++) png.data[i + c] = ink[c]!;
        png.data[i + 3] = Math.round(alpha * 255);
      }
    }
  }
}

function icon(design: PassDesign, size: number): Buffer {
  const png = new PNG({ width: size, height: size });
  // The mark keeps a margin, as app icons do: the icon is shown small, on the lock screen and in
  // notifications, where a mark touching the edges reads as cropped.
  draw(png, size, 0.72, design.mark, hex(design.label), hex(design.background));
  return PNG.sync.write(png);
}

/** The logo is the mark alone, square, on transparency; the wallet's name is the pass's logoText. */
function logo(design: PassDesign, scale: number): Buffer {
  const height = 50 * scale;
  const png = new PNG({ width: height, height });
  draw(png, height, 1, design.mark, hex(design.label), null);
  return PNG.sync.write(png);
}

for (const design of Object.values(DESIGNS)) {
  const dir = path.join(OUT, design.slug);
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'icon.png'), icon(design, 29));
  writeFileSync(path.join(dir, 'icon@2x.png'), icon(design, 58));
  writeFileSync(path.join(dir, 'icon@3x.png'), icon(design, 87));
  writeFileSync(path.join(dir, 'logo.png'), logo(design, 1));
  writeFileSync(path.join(dir, 'logo@2x.png'), logo(design, 2));
  writeFileSync(path.join(dir, 'logo@3x.png'), logo(design, 3));
  console.log(`${design.slug}: 6 images`);
}
