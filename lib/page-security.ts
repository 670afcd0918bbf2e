// The Content-Security-Policy of the HTML pages (the claim page and Next's error pages), with a
// fresh nonce per response (proxy.ts). The static page headers are in next.config.mjs; the API's
// in lib/api/cors.ts. Each directive names the threat it answers.

/** A fresh, unguessable value per response: only scripts carrying it may run. */
export function newNonce(): string {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/** The one page that compiles WebAssembly: the door page's barcode reader (components/scan/barcode-reader.ts). */
export const WASM_PAGES: ReadonlySet<string> = new Set(['/scan']);

export function pageContentSecurityPolicy(nonce: string, { dev = false, wasm = false } = {}): string {
  return [
    // Anything not named below: this origin only.
    "default-src 'self'",
    // Injected markup cannot run script: only Next's own scripts carry the nonce, and
    // 'strict-dynamic' lets them load the page's chunks. 'self' is for browsers without
    // 'strict-dynamic', which ignore the nonce-less rest. React's dev build needs eval.
    // 'wasm-unsafe-eval' (on WASM_PAGES alone) lets the page compile WebAssembly, and nothing
    // else: no eval, no new Function; the .wasm itself comes from this origin only (connect-src).
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${wasm ? " 'wasm-unsafe-eval'" : ''}${dev ? " 'unsafe-eval'" : ''}`,
    // Injected <style> cannot restyle the page (e.g. to hide the real address behind a fake one).
    // Dev mode injects styles without the nonce.
    `style-src 'self' ${dev ? "'unsafe-inline'" : `'nonce-${nonce}'`}`,
    // Wallet icons are data: URIs (the Wallet Standard requires it); nothing else is remote.
    "img-src 'self' data:",
    "font-src 'self'",
    // The API is same-origin. Mobile Wallet Adapter (Android) reaches the wallet app through a
    // websocket on localhost.
    "connect-src 'self' ws://localhost:*",
    // No plugins, no <base> rewriting relative URLs, forms post only here.
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    // Clickjacking: no site may frame the page and trick a person into signing.
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The nonce of a policy this module wrote (the request's, set by proxy.ts): for a page's own <style>. */
export function nonceOf(policy: string | null): string | undefined {
  return policy?.match(/'nonce-([A-Za-z0-9+/=]+)'/)?.[1];
}
