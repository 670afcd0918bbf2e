import { verifyPass } from '@/lib/claims';
import { preflight } from '@/lib/http/cors';
import { apiRoute, json } from '@/lib/http/route';

export const dynamic = 'force-dynamic';

/** The scanner check as JSON: what this service issued under ?serial=, or 404 pass_not_found. */
export const GET = apiRoute(async (request, { services }) =>
  json(await verifyPass(services, new URL(request.url).searchParams.get('serial'))),
);

export const OPTIONS = () => preflight('GET');
