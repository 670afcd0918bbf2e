import { claimWalletPass } from '@/lib/claims';
import { readJsonObject } from '@/lib/http/body';
import { preflight } from '@/lib/http/cors';
import { apiRoute, json } from '@/lib/http/route';
import { parseInput } from '@/lib/http/validate';
import { claimBodySchema } from '@/lib/schemas';

export const dynamic = 'force-dynamic';

/** Redeems a signed message for the wallet's pass: 201 when created, 200 when the wallet had one. */
export const POST = apiRoute(
  async (request, { services }) => {
    const claim = parseInput(claimBodySchema, await readJsonObject(request));
    const { created, downloadUrl } = await claimWalletPass(services, claim);
    return json({ downloadUrl }, created ? 201 : 200);
  },
  { rateLimited: true },
);

export const OPTIONS = () => preflight('POST');
