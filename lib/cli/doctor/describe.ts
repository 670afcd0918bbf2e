// How the doctor names servers, dates and errors in its lines without printing a secret.

export const isoDate = (date: Date) => date.toISOString().slice(0, 10);

/** A distinguished name on one line: "CN=…, OU=G4, O=Apple Inc., C=US" (the OU tells WWDR G1 from G4). */
export const describeName = (distinguishedName: string) => distinguishedName.split('\n').filter(Boolean).join(', ');

/** scheme://host:port/database: enough to recognise a server, never credentials, a query or an API key in the path. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const database = parsed.protocol.startsWith('postgres') ? parsed.pathname : '';
    return `${parsed.protocol}//${parsed.host}${database}`;
  } catch {
    return 'an unparseable URL';
  }
}

/** An error in a few words: its code and message, on one line. */
export function errorSummary(error: unknown): string {
  const e = error as { code?: string; message?: string; name?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'no answer in time';
  const cause = e?.cause?.code ?? e?.cause?.message;
  const code = e?.code && !e?.message?.includes(e.code) ? e.code : undefined;
  const text = [code, e?.message, cause && !e?.message?.includes(cause) ? cause : undefined].filter(Boolean).join(': ') || String(error);
  return text.replace(/\s+/g, ' ').slice(0, 200);
}

/** Drivers may quote their connection string in an error; its password and query never pass. */
export function redact(text: string, url: string): string {
  try {
    const parsed = new URL(url);
    let out = text;
    for (const secret of [parsed.password, decodeURIComponent(parsed.password), parsed.search, parsed.pathname.length > 1 ? parsed.pathname : '']) {
      if (secret && secret.length >= 3) out = out.split(secret).join('***');
    }
    return out;
  } catch {
    return text;
  }
}
