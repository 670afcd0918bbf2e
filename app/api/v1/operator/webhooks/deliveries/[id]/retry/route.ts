// POST /api/v1/operator/webhooks/deliveries/{id}/retry: served from the endpoint table (lib/api/endpoints.ts).
import { routeHandlers } from '@/lib/api/next';

export const dynamic = 'force-dynamic';
export const { POST, OPTIONS } = routeHandlers();
