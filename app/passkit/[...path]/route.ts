// Every path under /passkit/ (Apple's PassKit web service): the endpoint table (lib/api/endpoints/)
// through lib/api/next.ts.
export * from '@/lib/api/next';

export const dynamic = 'force-dynamic';
