// Reading a barcode from the camera's current frame: the browser's own BarcodeDetector where it
// has one for our formats (Chrome on Android, Safari 17+ on iOS... not Chromium on Linux, nor
// Firefox), else zxing-wasm's reader. The reader is imported only then (its own chunk, about 12 KiB
// gzip) and compiles its WebAssembly (about 930 KiB) from this origin:
// /scan/zxing_reader.wasm (app/scan/zxing_reader.wasm/route.ts), never the package's default
// CDN, which the page's CSP refuses and a door without internet cannot reach. The page's CSP has
// 'wasm-unsafe-eval' for this (lib/page-security.ts WASM_PAGES).

/** The formats a pass may carry (Apple's PKBarcodeFormat*: QR, PDF417, Aztec, Code 128), in the browser's names. */
const NATIVE_FORMATS = ['qr_code', 'pdf417', 'aztec', 'code_128'];
/** The same formats in zxing-wasm's names. */
const WASM_FORMATS = ['QRCode', 'PDF417', 'Aztec', 'Code128'] as const;
/** Frames are read at most this wide or tall: enough for a pass's code held near the camera, and fast. */
const MAX_SIDE = 960;

export type FrameReader = {
  kind: 'native' | 'wasm';
  /** The text of a barcode in the video's current frame, or null. */
  read(video: HTMLVideoElement): Promise<string | null>;
};

type DetectedBarcode = { rawValue: string; format: string };
type BarcodeDetectorInstance = { detect(source: CanvasImageSource): Promise<DetectedBarcode[]> };
type BarcodeDetectorClass = {
  new (options?: { formats?: string[] }): BarcodeDetectorInstance;
  getSupportedFormats?(): Promise<string[]>;
};

/** The browser's BarcodeDetector for our formats, or null where it has none (or none of them). */
async function nativeReader(): Promise<FrameReader | null> {
  const Detector = (globalThis as { BarcodeDetector?: BarcodeDetectorClass }).BarcodeDetector;
  if (typeof Detector !== 'function') return null;
  try {
    const supported = (await Detector.getSupportedFormats?.()) ?? NATIVE_FORMATS;
    const formats = NATIVE_FORMATS.filter((format) => supported.includes(format));
    if (formats.length === 0) return null;
    const detector = new Detector({ formats });
    return {
      kind: 'native',
      async read(video) {
        const found = await detector.detect(video);
        return found.find((barcode) => barcode.rawValue)?.rawValue ?? null;
      },
    };
  } catch {
    return null;
  }
}

/** The WebAssembly reader's URL on this origin; the version names the bytes (see the route). */
export const wasmReaderUrl = (sha256: string) => `/scan/zxing_reader.wasm?v=${sha256.slice(0, 16)}`;

async function wasmReader(): Promise<FrameReader> {
  const zxing = await import('zxing-wasm/reader');
  const url = wasmReaderUrl(zxing.ZXING_WASM_SHA256);
  // Compiled now, not at the first frame: a failure shows at once, and the first read is quick.
  await zxing.prepareZXingModule({
    overrides: { locateFile: (file: string, prefix: string) => (file.endsWith('.wasm') ? url : prefix + file) },
    fireImmediately: true,
  });
  const canvas = document.createElement('canvas');
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) throw new Error('no 2d canvas');
  return {
    kind: 'wasm',
    async read(video) {
      const { videoWidth: width, videoHeight: height } = video;
      if (!width || !height) return null;
      const scale = Math.min(1, MAX_SIDE / Math.max(width, height));
      canvas.width = Math.round(width * scale);
      canvas.height = Math.round(height * scale);
      context.drawImage(video, 0, 0, canvas.width, canvas.height);
      const frame = context.getImageData(0, 0, canvas.width, canvas.height);
      const results = await zxing.readBarcodes(frame, { formats: [...WASM_FORMATS], tryHarder: true, maxNumberOfSymbols: 1 });
      return results.find((result) => result.isValid && result.text)?.text ?? null;
    },
  };
}

/** The browser's detector where there is one, else the WebAssembly reader (loaded now). */
export async function createFrameReader(): Promise<FrameReader> {
  return (await nativeReader()) ?? wasmReader();
}
