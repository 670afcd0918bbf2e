// The scanner check page, as a complete HTML document: a pass's QR code opens it on a door
// phone. It needs no JavaScript, so it shows at once on any phone and its Content-Security-Policy
// can forbid scripts altogether.
//
// Why HTML text rather than a Next.js page: Next.js 16 does not server-render the not-found UI of
// a dynamic page (vercel/next.js#62228; measured here on 16.4: the 404 body is an empty shell
// filled in by client JavaScript), and a page cannot choose its own status code otherwise. Its
// endpoint (GET /verify in ./endpoints/passes.ts) sets 200, 404 or 503 itself, and every value
// written into the document goes through escapeHtml.
import { createHash } from 'node:crypto';
import { shortAddress } from '../address';
import { designFor } from '../passes/designs';
import type { Reply } from './endpoint';
import type { PassCheck } from './endpoints/passes.schemas';

export type VerifyOutcome =
  | { kind: 'genuine'; check: PassCheck }
  | { kind: 'not_issued' }
  /** 503 when the database did not answer, 500 for anything else (a bug, logged). */
  | { kind: 'unavailable'; status: 503 | 500 }
  /** 429: this client checked too often (RATE_LIMIT_PER_MINUTE); the page says when to scan again. */
  | { kind: 'too_many'; retryAfterSeconds: number };

export type VerifyPage = { status: number; html: string; contentSecurityPolicy: string };

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Threat: markup injected through a value (an issuer name from configuration) into the page. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** The page's colours; the test checks every text colour is WCAG AA or better on its background. */
export const PAGE_COLOURS = {
  verdictText: '#ffffff',
  verdicts: { genuine: '#0d6b3a', voided: '#a3141f', expired: '#a3141f', not_issued: '#a3141f', unavailable: '#5b4a00' },
  text: '#16181d',
  muted: '#4a5060',
  note: '#3a3f4b',
  page: '#f6f7f9',
  card: '#ffffff',
} as const;

const C = PAGE_COLOURS;

/** Read at arm's length, often in poor light: large type, one verdict colour per outcome. */
const BASE_CSS = `
*{box-sizing:border-box}
body{margin:0;background:${C.page};color:${C.text};font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.4}
main{max-width:32rem;margin:0 auto;padding:1rem}
.verdict{display:flex;gap:1rem;align-items:center;padding:1.25rem;border-radius:1rem;color:${C.verdictText}}
.genuine{background:${C.verdicts.genuine}}
.voided{background:${C.verdicts.voided}}
.expired{background:${C.verdicts.expired}}
.not_issued{background:${C.verdicts.not_issued}}
.unavailable{background:${C.verdicts.unavailable}}
.mark{flex:none;display:grid;place-items:center;width:3.5rem;height:3.5rem;border-radius:50%;border:3px solid currentColor;font-size:2rem;font-weight:700}
h1{margin:0;font-size:2rem;line-height:1.1}
.lead{margin:.25rem 0 0;font-size:1.125rem}
.preview{display:grid;margin:1rem 0;padding:1rem 1.25rem;border-radius:.75rem;box-shadow:0 1px 3px rgb(0 0 0/.25)}
.preview-name{font-weight:600}
.preview-label{margin-top:.75rem;font-size:.75rem;text-transform:uppercase;letter-spacing:.05em}
.preview-address{font-size:1.75rem}
dl{margin:0;padding:.25rem 1.25rem;border-radius:.75rem;background:${C.card}}
dl>div{padding:.75rem 0;border-bottom:1px solid #e1e4ea}
dl>div:last-child{border-bottom:none}
dt{font-size:.875rem;color:${C.muted}}
dd{margin:.125rem 0 0;font-size:1.125rem}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;overflow-wrap:anywhere}
.address{font-size:1.25rem;font-weight:600}
.note{margin:1rem 0 0;font-size:1rem;color:${C.note}}
`;

export function renderVerifyPage(outcome: VerifyOutcome): VerifyPage {
  switch (outcome.kind) {
    case 'genuine':
      // Issued here but void: red, and never the words "genuine" or "valid".
      if (outcome.check.status === 'voided') return page(200, 'Voided', voidedBody(outcome.check), previewCss(outcome.check));
      // Past the date its operator set: red too, never "genuine".
      if (outcome.check.expired) return page(200, 'Expired', expiredBody(outcome.check), previewCss(outcome.check));
      return page(200, 'Genuine pass', genuineBody(outcome.check), previewCss(outcome.check));
    case 'not_issued':
      return page(
        404,
        'Not issued here',
        verdict('not_issued', '✕', 'Not issued here', 'This service has no pass with this serial number.') +
          note(
            'Do not accept this pass as one of ours. If the guest insists, ask them to open the pass again from the link they received when they claimed it.',
          ),
      );
    case 'unavailable':
      return page(
        outcome.status,
        'Cannot check right now',
        verdict('unavailable', '!', 'Cannot check right now', 'The service could not look this pass up. Nothing is known about it either way.') +
          note('Scan the pass again in a moment.'),
      );
    case 'too_many':
      return page(
        429,
        'Too many checks',
        verdict('unavailable', '!', 'Too many checks', 'This device checked too many passes in the last minute. Nothing is known about this pass either way.') +
          note(`Scan the pass again in ${outcome.retryAfterSeconds} seconds.`),
      );
  }
}

function genuineBody(check: PassCheck): string {
  return (
    verdict('genuine', '✓', 'Genuine pass', `Issued by ${check.issuer}`) +
    passDetails(check) +
    note(
      'This confirms that this service issued the pass to the wallet above. To be sure the guest owns that ' +
        'wallet, ask them to show the same address in their wallet app.',
    )
  );
}

/** Reasons the service itself gives, in words for door staff; an operator's own reason is shown as written. */
const VOID_REASONS: Record<string, string> = { not_eligible: 'The wallet no longer meets the conditions for this pass.' };

function voidedBody(check: PassCheck): string {
  const reason = check.voidReason ? (VOID_REASONS[check.voidReason] ?? check.voidReason) : undefined;
  return (
    verdict('voided', '✕', 'Voided', `This pass was issued by ${check.issuer} but has been voided. Do not accept it.`) +
    (reason ? `<p class="note"><strong>Reason:</strong> ${escapeHtml(reason)}</p>` : '') +
    passDetails(check) +
    note('The pass may still show on the phone until it updates. Whatever it shows, this check is what counts.')
  );
}

function expiredBody(check: PassCheck): string {
  if (check.expirationDate === null) throw new Error('a pass checked as expired has no expirationDate');
  return (
    verdict(
      'expired',
      '✕',
      'Expired',
      `This pass was issued by ${check.issuer} but expired on ${formatInstant(new Date(check.expirationDate))}. Do not accept it.`,
    ) + passDetails(check)
  );
}

function passDetails(check: PassCheck): string {
  const design = designFor(check.walletType);
  const short = shortAddress(check.publicKey);
  const rows: [string, string, string?][] = [
    ['Wallet address', escapeHtml(check.publicKey), 'mono address'],
    ['Wallet app', escapeHtml(design.logoText)],
    ['Claimed', `<time datetime="${escapeHtml(check.claimedAt)}">${escapeHtml(formatInstant(new Date(check.claimedAt)))}</time>`],
    ['Serial number', escapeHtml(check.serialNumber), 'mono'],
  ];
  return (
    `<div class="preview" role="img" aria-label="${escapeHtml(`The pass on the phone looks like this: ${design.logoText}, wallet ${short}`)}">` +
    `<span class="preview-name">${escapeHtml(design.logoText)}</span><span class="preview-label">Wallet</span>` +
    `<span class="preview-address">${escapeHtml(short)}</span></div>` +
    `<dl>${rows.map(([term, value, cls]) => `<div><dt>${term}</dt><dd${cls ? ` class="${cls}"` : ''}>${value}</dd></div>`).join('')}</dl>`
  );
}

/** The preview takes the pass's own colours, so staff can compare it with the pass on the phone. */
function previewCss(check: PassCheck): string {
  const design = designFor(check.walletType);
  return `.preview{background:${design.background};color:${design.foreground}}.preview-label{color:${design.label}}`;
}

function verdict(kind: keyof typeof PAGE_COLOURS.verdicts, mark: string, title: string, lead: string): string {
  return (
    `<section class="verdict ${kind}" aria-labelledby="verdict"><span class="mark" aria-hidden="true">${mark}</span>` +
    `<div><h1 id="verdict">${escapeHtml(title)}</h1><p class="lead">${escapeHtml(lead)}</p></div></section>`
  );
}

const note = (text: string) => `<p class="note">${escapeHtml(text)}</p>`;

function page(status: number, title: string, body: string, extraCss = ''): VerifyPage {
  const css = BASE_CSS + extraCss;
  const styleHash = createHash('sha256').update(css).digest('base64');
  const html =
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="robots" content="noindex, nofollow">' +
    `<title>${escapeHtml(title)} · Pass check</title><style>${css}</style></head>` +
    `<body><main>${body}</main></body></html>`;
  return {
    status,
    html,
    // No scripts, no loads from anywhere: the one inline style block is allowed by its hash.
    contentSecurityPolicy: `default-src 'none'; style-src 'sha256-${styleHash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  };
}

/** "21 November 2026 at 03:50 UTC": door staff compare it with what the guest says. */
function formatInstant(date: Date): string {
  const text = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC' }).format(
    date,
  );
  return `${text} UTC`;
}

/** The page of `outcome` as the endpoint's answer: never cached, never indexed, under its own policy. */
export function verifyPageReply(outcome: VerifyOutcome): Reply {
  const page = renderVerifyPage(outcome);
  return {
    status: page.status,
    body: page.html,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': page.contentSecurityPolicy,
      'x-robots-tag': 'noindex',
      ...(outcome.kind === 'too_many' ? { 'retry-after': String(outcome.retryAfterSeconds) } : {}),
    },
  };
}
