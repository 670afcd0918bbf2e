import type { Metadata } from 'next';
import { ApiReference } from '@/components/docs/api-reference';

export const metadata: Metadata = {
  title: 'API reference · Wallet pass claim',
  description: 'The HTTP API of the wallet pass claim service: endpoints, schemas, errors and examples.',
};

/** The API reference, rendered from /api/v1/openapi.json. */
export default function DocsPage() {
  return <ApiReference />;
}
