import { preflight } from '@/lib/http/cors';
import { apiRoute, json } from '@/lib/http/route';
import { openApiDocument } from '@/lib/openapi/endpoints';

export const dynamic = 'force-dynamic';

/** The OpenAPI 3.1 document, its server set to PUBLIC_BASE_URL. */
export const GET = apiRoute(async (_request, { services }) =>
  json(openApiDocument(services.config.publicBaseUrl), 200, { 'cache-control': 'public, max-age=300' }),
);

export const OPTIONS = () => preflight('GET');
