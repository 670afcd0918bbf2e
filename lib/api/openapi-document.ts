// The OpenAPI document the service serves, built once per server URL: it depends on nothing else,
// and building it converts every schema of the table.
import type { Endpoint } from './endpoint';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi';

/** The version of the v1 contract the document describes; additive changes bump the minor. */
export const API_VERSION = '1.0.0';

/**
 * The document of `endpoints`, by server URL, each built on first use. The table is asked for
 * when a document is first built, as the table holds the entry that serves it.
 */
export function cachedOpenApiDocument(endpoints: () => readonly Endpoint[]): (serverUrl?: string) => OpenApiDocument {
  const documents = new Map<string | undefined, OpenApiDocument>();
  return (serverUrl) => {
    const cached = documents.get(serverUrl);
    if (cached) return cached;
    const document = buildOpenApiDocument({ serverUrl, version: API_VERSION, endpoints: endpoints() });
    documents.set(serverUrl, document);
    return document;
  };
}
