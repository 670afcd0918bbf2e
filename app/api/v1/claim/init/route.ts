import { issueMessage } from '@/lib/claims';
import { preflight } from '@/lib/http/cors';
import { apiRoute, json } from '@/lib/http/route';
import { parseInput } from '@/lib/http/validate';
import { initQuerySchema } from '@/lib/schemas';

export const dynamic = 'force-dynamic';

/** Issues a single-use sign-in message for ?publicKey=. */
export const GET = apiRoute(
  async (request, { services }) => {
    const query = Object.fromEntries(new URL(request.url).searchParams);
    const { publicKey } = parseInput(initQuerySchema, query);
    return json(await issueMessage(services, publicKey));
  },
  { rateLimited: true },
);

export const OPTIONS = () => preflight('GET');
