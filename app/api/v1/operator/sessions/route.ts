// POST /api/v1/operator/sessions: served from the endpoint table (lib/api/endpoints.ts).
import { routeHandlers } from '@/lib/api/next';

export const dynamic = 'force-dynamic';
export const { POST, OPTIONS } = routeHandlers();
