// The service's own endpoints: its health, and this API's OpenAPI document (served from the
// cache ./index.ts hands in, as the document describes the whole table, this file included).
import { checkHealth } from '../../health';
import { type Endpoint, endpoint } from '../endpoint';
import type { OpenApiDocument } from '../openapi';
import { healthResponseSchema, openApiDocumentSchema } from './service.schemas';

export function serviceEndpoints(openApiDocument: (serverUrl: string) => OpenApiDocument): readonly Endpoint[] {
  return [
    endpoint({
      method: 'GET',
      path: '/health',
      operationId: 'health',
      tag: 'Service',
      summary: 'Health',
      description: 'Whether the service and its database answer. Not cached.',
      responses: {
        200: { description: 'The service and its database answer.', json: healthResponseSchema, example: { status: 'healthy' } },
        503: { description: 'The database does not answer.', json: healthResponseSchema, example: { status: 'unhealthy' } },
      },
      problems: [],
      handle: async (_, { services }) => {
        const health = await checkHealth(services);
        return { status: health.status === 'healthy' ? 200 : 503, json: health };
      },
    }),
    endpoint({
      method: 'GET',
      path: '/api/v1/openapi.json',
      operationId: 'openApiDocument',
      tag: 'Service',
      summary: 'This API description',
      description: 'This document, OpenAPI 3.1, generated from the schemas the handlers validate with. Its server is PUBLIC_BASE_URL.',
      responses: { 200: { description: 'The document.', json: openApiDocumentSchema } },
      problems: [],
      handle: (_, { services }) => ({ json: openApiDocument(services.config.publicBaseUrl), headers: { 'cache-control': 'public, max-age=300' } }),
    }),
  ];
}
