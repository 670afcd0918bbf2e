'use client';
// A QR code as SVG paths (crisp at any size, no canvas, no innerHTML). The encoding is the qrcode
// library's; drawing its module matrix takes a few lines, which is all that is written here.
import QRCode from 'qrcode';
import { useMemo } from 'react';

/** The blank margin the QR specification asks for, in modules. */
const QUIET_ZONE = 4;

export default function QrCode({ value, label, className }: { value: string; label: string; className?: string }) {
  const { size, path } = useMemo(() => {
    const { modules } = QRCode.create(value, { errorCorrectionLevel: 'M' });
    let d = '';
    for (let row = 0; row < modules.size; row++) {
      // One rectangle per run of dark modules keeps the path short.
      for (let col = 0; col < modules.size; ) {
        if (!modules.get(row, col)) {
          col++;
          continue;
        }
        let run = 1;
        while (col + run < modules.size && modules.get(row, col + run)) run++;
        d += `M${col + QUIET_ZONE} ${row + QUIET_ZONE}h${run}v1h-${run}z`;
        col += run;
      }
    }
    return { size: modules.size + 2 * QUIET_ZONE, path: d };
  }, [value]);

  return (
    <svg className={className} viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} shapeRendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={path} fill="#0b0b0f" />
    </svg>
  );
}
