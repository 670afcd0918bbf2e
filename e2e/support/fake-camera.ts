// A video of a barcode for Chromium's fake camera (`--use-file-for-fake-video-capture`): the
// barcode drawn by zxing-wasm's writer (the same library as the door page's reader, but its
// other half: the writer knows nothing of the reader), scaled up on a white frame and written as
// a YUV4MPEG2 file (.y4m: a text header, then each frame's raw I420 planes), which Chromium plays
// in a loop as the camera's picture.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { prepareZXingModule, writeBarcode } from 'zxing-wasm/writer';

const WIDTH = 640;
const HEIGHT = 480;
/** Pixels per module: a version 5-8 QR code (37-49 modules) fills half the frame or so. */
const MODULE_PX = 8;
const FRAMES = 2;

let prepared = false;

/** The barcode's modules: one byte per module, 0 dark and 255 light (no quiet zone). */
export async function barcodeModules(text: string): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  if (!prepared) {
    // From the installed package, never the CDN zxing-wasm would otherwise fetch it from.
    const file = path.join(process.cwd(), 'node_modules', 'zxing-wasm', 'dist', 'writer', 'zxing_writer.wasm');
    prepareZXingModule({ overrides: { wasmBinary: readFileSync(file).buffer as ArrayBuffer } });
    prepared = true;
  }
  const written = await writeBarcode(text, { format: 'QRCode', addQuietZones: false });
  if (written.error) throw new Error(`zxing-wasm could not write the barcode: ${written.error}`);
  return written.symbol;
}

/** Writes a .y4m of `text` as a QR code, centred on white; returns the file's path. */
export async function writeBarcodeVideo(text: string, file: string): Promise<string> {
  const symbol = await barcodeModules(text);
  const size = symbol.width * MODULE_PX;
  if (size > HEIGHT - 2 * 4 * MODULE_PX) throw new Error(`the code (${symbol.width} modules) does not fit the frame`);
  const luma = Buffer.alloc(WIDTH * HEIGHT, 255);
  const left = Math.floor((WIDTH - size) / 2);
  const top = Math.floor((HEIGHT - size) / 2);
  for (let y = 0; y < size; y++) {
    const row = Math.floor(y / MODULE_PX) * symbol.width;
    for (let x = 0; x < size; x++) luma[(top + y) * WIDTH + left + x] = symbol.data[row + Math.floor(x / MODULE_PX)]! < 128 ? 0 : 255;
  }
  const chroma = Buffer.alloc((WIDTH / 2) * (HEIGHT / 2), 128); // no colour: U and V at their middle
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma, chroma]);
  const header = Buffer.from(`YUV4MPEG2 W${WIDTH} H${HEIGHT} F10:1 Ip A1:1 C420jpeg\n`);
  writeFileSync(file, Buffer.concat([header, ...Array.from({ length: FRAMES }, () => frame)]));
  return file;
}
