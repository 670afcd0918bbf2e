// DELETE /api/v1/operator/api-keys/{id}: served from the endpoint table (lib/api/endpoints.ts).
import { routeHandlers } from '@/lib/api/next';

export const dynamic = 'force-dynamic';
export const { DELETE, OPTIONS } = routeHandlers();
