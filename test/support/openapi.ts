// Holds real responses against the OpenAPI document: the status must be documented for the
// operation, the media type documented for that status, and the body valid against the documented
// JSON Schema (Ajv, draft 2020-12, the dialect of OpenAPI 3.1). It records which documented
// responses were seen, so a test can demand that each one was.
import { Ajv2020 } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { OpenApiDocument } from '@/lib/api/openapi';

type Operation = {
  responses: Record<
    string,
    { content?: Record<string, { schema: unknown; example?: unknown; examples?: Record<string, { value: unknown }> }>; headers?: Record<string, unknown> }
  >;
};

export class ResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly seen = new Set<string>();

  constructor(readonly document: OpenApiDocument) {
    addFormats(this.ajv);
    this.ajv.addSchema(document as object, 'openapi.json');
  }

  operation(method: string, route: string): Operation {
    const operation = (this.document.paths[route] as Record<string, Operation> | undefined)?.[method.toLowerCase()];
    if (!operation) throw new Error(`${method} ${route} is not in the document`);
    return operation;
  }

  /** Every documented response as "METHOD path status". */
  documentedResponses(): string[] {
    return Object.entries(this.document.paths).flatMap(([route, item]) =>
      Object.entries(item as Record<string, Operation>).flatMap(([method, operation]) =>
        Object.keys(operation.responses).map((status) => `${method.toUpperCase()} ${route} ${status}`),
      ),
    );
  }

  seenResponses(): string[] {
    return [...this.seen];
  }

  /** Checks a response against the document; resolves to its parsed body (JSON) or bytes. */
  async check(method: string, route: string, response: Response): Promise<unknown> {
    const status = String(response.status);
    const documented = this.operation(method, route).responses[status];
    expect(documented, `${method} ${route} answered ${status}, which the document does not list`).toBeDefined();
    this.seen.add(`${method.toUpperCase()} ${route} ${status}`);

    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (!documented!.content) {
      expect(await response.text(), `${method} ${route} ${status} has no documented body`).toBe('');
      return undefined;
    }
    expect(Object.keys(documented!.content), `${method} ${route} ${status}: media type`).toContain(mediaType);
    if (!mediaType.endsWith('json')) return new Uint8Array(await response.arrayBuffer());
    const body = await response.json();
    this.expectValid(this.pointer(route, method, status, mediaType), body, `${method} ${route} ${status}`);
    return body;
  }

  /** Checks a body that did not come through a route handler against a documented response. */
  checkBody(method: string, route: string, status: number, mediaType: string, body: unknown): void {
    expect(this.operation(method, route).responses[String(status)]?.content?.[mediaType], `${method} ${route} ${status} ${mediaType}`).toBeDefined();
    this.seen.add(`${method.toUpperCase()} ${route} ${status}`);
    this.expectValid(this.pointer(route, method, String(status), mediaType), body, `${method} ${route} ${status}`);
  }

  /** A JSON pointer to a response's schema inside the document. */
  pointer(route: string, method: string, status: string, mediaType: string): string {
    const escapePointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
    return `openapi.json#/paths/${escapePointer(route)}/${method.toLowerCase()}/responses/${status}/content/${escapePointer(mediaType)}/schema`;
  }

  expectValid(schemaRef: string, value: unknown, what: string): void {
    const validate = this.ajv.getSchema(schemaRef) ?? this.ajv.compile({ $ref: schemaRef });
    const valid = validate(value);
    expect(valid ? [] : validate.errors, `${what}: ${JSON.stringify(value).slice(0, 300)}`).toEqual([]);
  }
}
