// The API, one entry per endpoint, by feature: each entry declares its method and path, the
// schemas of its input and answers (in <feature>.schemas.ts beside it), the problem codes it
// answers with, whether it is rate limited, and a handler that calls one lib/ function.
// Everything else derives from this table: the custom server's dispatch and the Next.js route
// handlers (../frame.ts, ../next.ts), the CORS preflights, the OpenAPI document (../openapi.ts),
// the test harness and the benchmark. Adding an endpoint is one entry in its feature's file and its
// lib/ function: the route files under app/ catch every path the API owns (../paths.ts).
import type { Endpoint } from '../endpoint';
import { cachedOpenApiDocument } from '../openapi-document';
import { CHECK_IN_ENDPOINTS } from './check-ins';
import { CLAIM_ENDPOINTS } from './claims';
import { ELIGIBILITY_ENDPOINTS } from './eligibility';
import { OPERATOR_ENDPOINTS } from './operator';
import { PASS_ENDPOINTS } from './passes';
import { PASSKIT_ENDPOINTS } from './passkit';
import { PROGRAM_IMAGE_ENDPOINTS } from './program-images';
import { PROGRAM_ENDPOINTS } from './programs';
import { PUBLIC_PROGRAM_ENDPOINTS } from './programs-public';
import { serviceEndpoints } from './service';
import { UPDATE_ENDPOINTS } from './updates';

/** This API's OpenAPI document, for a server URL (none: no `servers`). */
export const openApiDocument = cachedOpenApiDocument(() => ENDPOINTS);

/** The order is the document's order of paths. */
export const ENDPOINTS: readonly Endpoint[] = [
  ...CLAIM_ENDPOINTS,
  ...PASS_ENDPOINTS,
  ...serviceEndpoints(openApiDocument),
  ...OPERATOR_ENDPOINTS,
  ...PROGRAM_ENDPOINTS,
  ...PROGRAM_IMAGE_ENDPOINTS,
  ...UPDATE_ENDPOINTS,
  ...PUBLIC_PROGRAM_ENDPOINTS,
  ...CHECK_IN_ENDPOINTS,
  ...PASSKIT_ENDPOINTS,
  ...ELIGIBILITY_ENDPOINTS,
];
