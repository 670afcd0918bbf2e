'use client';
// A program's images: for each kind a file input whose file is shown in the live picture at once
// (read as a data: URL: the page's img-src allows data: and 'self', not blob:), sent as it is
// (PUT with the file's own Content-Type; the service decodes, resizes and re-encodes it), then
// shown as the service serves it. Remove deletes it. The API's refusals are said in words.
import { useEffect, useId, useState } from 'react';
import type { PassPictureImages } from '@/components/pass-picture/PassPicture';
import { Button } from '@/components/ui/Button';
import { ClaimApiError } from '@/lib/client';
import { operatorApi, PROGRAM_IMAGE_KINDS, type ProgramImageKind } from '@/lib/client/operator';
import styles from './console.module.css';
import { useConsole } from './console-context';

const KIND_WORDS: Record<ProgramImageKind, { label: string; hint: string }> = {
  logo: { label: 'Logo', hint: 'Top left of the pass, beside the logo text.' },
  icon: { label: 'Icon', hint: 'In notifications and on the lock screen.' },
  strip: { label: 'Strip', hint: 'Behind the primary fields (store cards, coupons, event tickets).' },
  thumbnail: { label: 'Thumbnail', hint: 'Beside the primary fields (generic passes, event tickets).' },
  background: { label: 'Background', hint: 'Blurred behind an event ticket.' },
};

type ImageState = { preview: string | null; busy: boolean; error: string | null };
const EMPTY: ImageState = { preview: null, busy: false, error: null };
type States = Record<ProgramImageKind, ImageState>;
/** A state update of one kind's image. */
const patched = (kind: ProgramImageKind, patch: Partial<ImageState>) => (previous: States) => ({ ...previous, [kind]: { ...previous[kind], ...patch } });

function readAsDataUrl(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** The words for a refused upload: the service's own detail says what was wrong with the image. */
function uploadError(error: unknown, describe: (error: unknown) => string): string {
  if (!(error instanceof ClaimApiError)) return describe(error);
  switch (error.status) {
    case 400:
      return `The service could not use this image: ${error.detail}`;
    case 413:
      return 'This image is too big: at most 2 MiB.';
    case 415:
      return 'Only PNG and JPEG images can be used.';
    default:
      return describe(error);
  }
}

export function ProgramImages({ slug, onImages }: { slug: string; onImages(images: PassPictureImages): void }) {
  const { describe, announce, changed } = useConsole();
  const [state, setState] = useState<States>(() => Object.fromEntries(PROGRAM_IMAGE_KINDS.map((kind) => [kind, EMPTY])) as States);
  const id = useId();

  const update = (kind: ProgramImageKind, patch: Partial<ImageState>) => setState(patched(kind, patch));

  // The images the program has: each kind the service serves.
  useEffect(() => {
    let live = true;
    for (const kind of PROGRAM_IMAGE_KINDS) {
      const url = operatorApi.imageUrl(slug, kind);
      fetch(url, { credentials: 'same-origin', cache: 'no-store' }).then(
        (response) => live && response.ok && setState(patched(kind, { preview: `${url}?v=${Date.now()}` })),
        () => {},
      );
    }
    return () => {
      live = false;
    };
  }, [slug]);

  useEffect(() => {
    const images: PassPictureImages = {};
    for (const kind of PROGRAM_IMAGE_KINDS) if (state[kind].preview) images[kind] = state[kind].preview ?? undefined;
    onImages(images);
  }, [state, onImages]);

  async function upload(kind: ProgramImageKind, input: HTMLInputElement) {
    const file = input.files?.[0];
    if (!file) return;
    const before = state[kind].preview;
    update(kind, { busy: true, error: null });
    try {
      update(kind, { preview: await readAsDataUrl(file) });
    } catch {
      // The preview waits for the upload.
    }
    try {
      await operatorApi.putImage(slug, kind, file);
      update(kind, { busy: false, preview: `${operatorApi.imageUrl(slug, kind)}?v=${Date.now()}` });
      announce(`${KIND_WORDS[kind].label} image uploaded.`);
      changed();
    } catch (error) {
      update(kind, { busy: false, preview: before, error: uploadError(error, describe) });
    } finally {
      input.value = '';
    }
  }

  async function remove(kind: ProgramImageKind) {
    update(kind, { busy: true, error: null });
    try {
      await operatorApi.deleteImage(slug, kind);
      update(kind, { busy: false, preview: null });
      announce(`${KIND_WORDS[kind].label} image removed.`);
      changed();
    } catch (error) {
      update(kind, { busy: false, error: describe(error) });
    }
  }

  return (
    <fieldset className={styles.fieldset}>
      <legend className={styles.legend}>Images</legend>
      <span className={styles.hint}>PNG or JPEG, at most 2 MiB each. The service makes the sizes Wallet needs.</span>
      {PROGRAM_IMAGE_KINDS.map((kind) => {
        const { preview, busy, error } = state[kind];
        const inputId = `${id}-${kind}`;
        return (
          <div key={kind} className={styles.imageRow} data-image={kind} aria-busy={busy}>
            <div className={styles.field}>
              <label htmlFor={inputId}>{KIND_WORDS[kind].label} image</label>
              <input
                id={inputId}
                type="file"
                accept="image/png,image/jpeg"
                className={styles.fileInput}
                disabled={busy}
                aria-describedby={`${inputId}-hint${error ? ` ${inputId}-error` : ''}`}
                aria-invalid={error ? true : undefined}
                onChange={(event) => void upload(kind, event.currentTarget)}
              />
              <span id={`${inputId}-hint`} className={styles.hint}>
                {KIND_WORDS[kind].hint}
              </span>
              {error && (
                <span id={`${inputId}-error`} role="alert" className={styles.fieldError}>
                  {error}
                </span>
              )}
            </div>
            {preview && (
              <div className={styles.imagePreview}>
                {/* biome-ignore lint/performance/noImgElement: a data: URL or the operator-only image endpoint, which next/image's optimiser cannot fetch */}
                <img src={preview} alt={`${KIND_WORDS[kind].label} of this program`} className={styles.previewImage} />
                <Button variant="secondary" className={styles.compact} disabled={busy} onClick={() => void remove(kind)}>
                  Remove<span className="visually-hidden"> {KIND_WORDS[kind].label.toLowerCase()} image</span>
                </Button>
              </div>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
