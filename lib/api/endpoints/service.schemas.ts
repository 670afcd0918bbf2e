// The shapes of the service's own endpoints (./service.ts): health and this API's description.
import { z } from 'zod';

export const healthResponseSchema = z.object({ status: z.enum(['healthy', 'unhealthy']) }).meta({ id: 'Health', description: 'Exactly one field.' });

export const openApiDocumentSchema = z
  .looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document: this one.' });
