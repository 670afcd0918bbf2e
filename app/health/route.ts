import { preflight } from '@/lib/http/cors';
import { apiRoute, json } from '@/lib/http/route';

export const dynamic = 'force-dynamic';

/** 200 {"status":"healthy"} while the database answers, 503 {"status":"unhealthy"} when it does not. */
export const GET = apiRoute(async (_request, { services }) => {
  const healthy = await services.store.ping().then(
    () => true,
    () => false,
  );
  return json({ status: healthy ? 'healthy' : 'unhealthy' }, healthy ? 200 : 503);
});

export const OPTIONS = () => preflight('GET');
