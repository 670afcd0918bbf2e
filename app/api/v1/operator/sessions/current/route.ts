// GET and DELETE /api/v1/operator/sessions/current: served from the endpoint table (lib/api/endpoints.ts).
import { routeHandlers } from '@/lib/api/next';

export const dynamic = 'force-dynamic';
export const { GET, DELETE, OPTIONS } = routeHandlers();
