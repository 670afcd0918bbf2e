'use client';
// The API reference: Redoc (installed from npm, bundled by Next) rendering the live document at
// /api/v1/openapi.json. It loads only from this origin: Redoc's theme names fonts without fetching
// them, and here names the system's own, so no font or script comes from a CDN.
import dynamic from 'next/dynamic';

const OPENAPI_URL = '/api/v1/openapi.json';

const SYSTEM_FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
const MONOSPACE_FONTS = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace';

// Redoc renders in the browser only: it measures the page, and its styles are injected at run time.
const RedocStandalone = dynamic(() => import('redoc').then((redoc) => redoc.RedocStandalone), {
  ssr: false,
  loading: () => <p style={{ padding: '2rem', fontFamily: SYSTEM_FONTS }}>Loading the API reference…</p>,
});

/**
 * A problem's `type` is /docs#problem-<code>. The entry it names exists only once Redoc has
 * rendered the description, after the browser looked for the anchor, so look again then.
 */
function scrollToHash(): void {
  const id = decodeURIComponent(window.location.hash.slice(1));
  if (id.startsWith('problem-')) document.getElementById(id)?.scrollIntoView();
}

export function ApiReference() {
  return (
    <RedocStandalone
      specUrl={OPENAPI_URL}
      onLoaded={scrollToHash}
      options={{
        downloadDefinitionUrl: OPENAPI_URL,
        expandResponses: '200,201',
        jsonSamplesExpandLevel: 3,
        requiredPropsFirst: true,
        showExtensions: false,
        hideLoading: true,
        theme: {
          typography: {
            fontFamily: SYSTEM_FONTS,
            headings: { fontFamily: SYSTEM_FONTS },
            code: { fontFamily: MONOSPACE_FONTS },
          },
        },
      }}
    />
  );
}
