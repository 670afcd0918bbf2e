// /download: the endpoint table (lib/api/endpoints/) through lib/api/next.ts. A file of its own: a catch-all
// at the root would take every unknown path from the pages too (lib/api/paths.ts).
export * from '@/lib/api/next';

export const dynamic = 'force-dynamic';
