// GET /api/v1/operator/stats: served from the endpoint table (lib/api/endpoints.ts).
import { routeHandlers } from '@/lib/api/next';

export const dynamic = 'force-dynamic';
export const { GET, OPTIONS } = routeHandlers();
