'use client';
// STAND-IN until branch h20-claim-page's PassPicture is merged (same props): the pass's texts and
// fields, front and back, so that the editor can be built and tested against the interface.
import { fillPlaceholders } from '@/lib/programs/design';
import type { Design, DesignField } from '@/lib/programs/schema';

export type PassPictureImages = Partial<Record<'logo' | 'icon' | 'strip' | 'thumbnail' | 'background', string>>;

export type PassPictureProps = {
  design: Design;
  name: string;
  images?: PassPictureImages;
  sample: { publicKey: string; serialNumber: string; claimedAt: string; walletType: string };
  side?: 'front' | 'back' | 'both';
};

export function PassPicture({ design, name, images, sample, side = 'both' }: PassPictureProps) {
  const fill = (value: string) => fillPlaceholders(value, { ...sample, claimedAt: new Date(sample.claimedAt) });
  const list = (fields: DesignField[] | undefined) =>
    (fields ?? []).map((field) => (
      <div key={field.key}>
        <dt>{field.label}</dt>
        <dd>{fill(field.value)}</dd>
      </div>
    ));
  return (
    <div>
      {side !== 'back' && (
        <figure aria-label={`Front of the ${name} pass`}>
          {/* biome-ignore lint/performance/noImgElement: stand-in */}
          {images?.logo && <img src={images.logo} alt="Logo" />}
          <p>{design.logoText ?? design.organizationName ?? name}</p>
          <dl>
            {list(design.fields?.header)}
            {list(design.fields?.primary)}
            {list(design.fields?.secondary)}
            {list(design.fields?.auxiliary)}
          </dl>
        </figure>
      )}
      {side !== 'front' && (
        <figure aria-label={`Back of the ${name} pass`}>
          <dl>{list(design.fields?.back)}</dl>
        </figure>
      )}
    </div>
  );
}
