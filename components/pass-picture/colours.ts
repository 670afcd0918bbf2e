// A design's colours as the custom properties PassPicture.module.css reads. Apart from the
// component (a client module), so that a server page can write them into its own nonce'd rule.
import type { Design } from '@/lib/programs/schema';

const COLOUR = /^#[0-9a-fA-F]{6}$/;

/** The design's colours as the custom properties PassPicture.module.css reads; only valid #rrggbb. */
export function passColours(design: Partial<Pick<Design, 'backgroundColor' | 'foregroundColor' | 'labelColor'>>): Record<string, string> {
  const colours: Record<string, string> = {};
  if (design.backgroundColor && COLOUR.test(design.backgroundColor)) colours['--pass-bg'] = design.backgroundColor;
  if (design.foregroundColor && COLOUR.test(design.foregroundColor)) colours['--pass-fg'] = design.foregroundColor;
  if (design.labelColor && COLOUR.test(design.labelColor)) colours['--pass-label'] = design.labelColor;
  return colours;
}
