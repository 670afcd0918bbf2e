// Conditional GET by entity tag: whether a client's copy of a file is current.

/** If-None-Match against our strong ETag (a weak comparison, as RFC 9110 asks for GET). */
export function matchesEtag(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.trim() === '*' || header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}
