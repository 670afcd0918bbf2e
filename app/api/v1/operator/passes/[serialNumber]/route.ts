// GET and PATCH /api/v1/operator/passes/{serialNumber}: served from the endpoint table (lib/api/endpoints.ts).
import { routeHandlers } from '@/lib/api/next';

export const dynamic = 'force-dynamic';
export const { GET, PATCH, OPTIONS } = routeHandlers();
