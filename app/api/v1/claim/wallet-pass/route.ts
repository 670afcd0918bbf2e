// POST /api/v1/claim/wallet-pass: served from the endpoint table (lib/api/endpoints.ts).
import { routeHandlers } from '@/lib/api/next';

export const dynamic = 'force-dynamic';
export const { POST, OPTIONS } = routeHandlers();
