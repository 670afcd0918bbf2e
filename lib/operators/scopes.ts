// What a credential may do. A session and an `operator` API key may call every operator endpoint;
// a `scan` API key, made for the door, may only check passes in and list programs (each endpoint
// declares which it allows: `auth: 'operator'` or `auth: 'scan'`, lib/api/endpoint.ts).
export const SCOPES = ['operator', 'scan'] as const;

export type Scope = (typeof SCOPES)[number];

/** Whether a credential of `scope` may call an endpoint that allows `allowed`. */
export const scopeAllows = (allowed: Scope, scope: Scope): boolean => scope === 'operator' || allowed === 'scan';
