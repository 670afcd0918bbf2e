// Whether this instance can serve: its database answers. (Redis is not part of it: without Redis
// the service keeps working on per-instance rate limits.)
import type { Store } from './db/store';

export async function checkHealth(services: { store: Pick<Store, 'ping'> }): Promise<{ status: 'healthy' | 'unhealthy' }> {
  const healthy = await services.store.ping().then(
    () => true,
    () => false,
  );
  return { status: healthy ? 'healthy' : 'unhealthy' };
}
