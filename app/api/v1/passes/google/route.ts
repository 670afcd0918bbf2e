import { getGoogleSaveUrl } from '@/lib/claims';
import { preflight } from '@/lib/http/cors';
import { apiRoute, json } from '@/lib/http/route';

export const dynamic = 'force-dynamic';

/**
 * {"saveUrl": "https://pay.google.com/gp/v/save/…"} for the download id ?pass=; 404
 * google_wallet_not_configured when this service has no Google Wallet issuer.
 */
export const GET = apiRoute(async (request, { services }) =>
  json({ saveUrl: await getGoogleSaveUrl(services, new URL(request.url).searchParams.get('pass')) }),
);

export const OPTIONS = () => preflight('GET');
