// The Google stand-in behaves as Google documents, over real HTTP: a token for an assertion
// signed RS256 by the test service account (with jose, as a client would), then Generic classes
// and objects through insert / get / patch / update, with Google's codes and error bodies.
import { importPKCS8, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOGLE_TOKEN_URI, TEST_ISSUER_ID, type TestServiceAccount, testServiceAccount } from '../google';
import { GoogleWalletApiStandIn, JWT_BEARER_GRANT, WALLET_SCOPE } from './google-wallet-api';

const CLASS_ID = `${TEST_ISSUER_ID}.wallet_pass`;
const OBJECT_ID = `${TEST_ISSUER_ID}.3f2b6c1e-8d4a-4f7b-9c2e-5a1d0b7e9f10`;

/** What a client builds from a key file: claims per Google's server-to-server guide, signed RS256 with its private key. */
async function assertion(account: TestServiceAccount, claims: JWTPayload = {}, aud = account.tokenUri): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: WALLET_SCOPE, ...claims })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(account.clientEmail)
    .setAudience(aud)
    .setIssuedAt(typeof claims.iat === 'number' ? claims.iat : now)
    .setExpirationTime(typeof claims.exp === 'number' ? claims.exp : now + 3600)
    .sign(await importPKCS8(account.privateKeyPem, 'RS256'));
}

async function requestToken(tokenUri: string, jwt: string) {
  const response = await fetch(tokenUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: JWT_BEARER_GRANT, assertion: jwt }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('Google Wallet API stand-in', () => {
  let google: GoogleWalletApiStandIn;
  let account: TestServiceAccount;
  let accessToken: string;

  const api = async (method: string, path: string, body?: unknown, token: string | null = accessToken) => {
    const response = await fetch(`${google.apiUrl}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  };

  beforeAll(async () => {
    google = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID });
    account = google.serviceAccount;
  });
  afterAll(async () => {
    await google.close();
  });

  it('makes a service-account key file whose token_uri is its token endpoint', () => {
    expect(JSON.parse(account.json)).toMatchObject({ type: 'service_account', client_email: account.clientEmail, token_uri: google.tokenUrl });
    expect(google.tokenUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/token$/);
    expect(google.apiUrl).toBe(`${google.baseUrl}/walletobjects/v1`);
  });

  it('issues a Bearer access token for an RS256 assertion signed by the service account', async () => {
    const { status, body } = await requestToken(account.tokenUri, await assertion(account));
    expect(status).toBe(200);
    expect(body).toEqual({ access_token: expect.any(String), expires_in: 3600, scope: WALLET_SCOPE, token_type: 'Bearer' });
    accessToken = body.access_token;
    // Clients that always write Google's own token URL in `aud` are accepted too.
    expect((await requestToken(account.tokenUri, await assertion(account, {}, GOOGLE_TOKEN_URI))).status).toBe(200);
  });

  it('refuses an assertion signed by another key: 400 invalid_grant, and the API answers 401 without a token', async () => {
    const impostor = { ...testServiceAccount(), clientEmail: account.clientEmail }; // same email, other key
    const { status, body } = await requestToken(account.tokenUri, await assertion(impostor));
    expect(status).toBe(400);
    expect(body).toEqual({ error: 'invalid_grant', error_description: 'Invalid JWT Signature.' });

    const unauthenticated = await api('GET', `/genericObject/${OBJECT_ID}`, undefined, null);
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body).toEqual({
      error: { code: 401, message: expect.stringContaining('missing required authentication credential'), status: 'UNAUTHENTICATED' },
    });
    expect(unauthenticated.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('refuses assertions Google would refuse: wrong issuer, audience, lifetime, grant type, no scope', async () => {
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, Promise<{ status: number; body: Record<string, any> }>, string, string]> = [
      [
        'another issuer',
        requestToken(account.tokenUri, await assertion({ ...account, clientEmail: 'someone@else.iam.gserviceaccount.com' })),
        'invalid_grant',
        'Invalid grant: account not found',
      ],
      [
        'another audience',
        requestToken(account.tokenUri, await assertion(account, {}, 'https://example.com/token')),
        'invalid_grant',
        'Invalid JWT: Failed audience check.',
      ],
      [
        'exp more than an hour after iat',
        requestToken(account.tokenUri, await assertion(account, { iat: now, exp: now + 3601 })),
        'invalid_grant',
        expect.stringContaining('short-lived token (60 minutes)'),
      ],
      [
        'expired',
        requestToken(account.tokenUri, await assertion(account, { iat: now - 7200, exp: now - 3600 })),
        'invalid_grant',
        expect.stringContaining('short-lived token'),
      ],
      ['no scope', requestToken(account.tokenUri, await assertion(account, { scope: '' })), 'invalid_scope', expect.any(String)],
    ];
    for (const [name, pending, error, description] of cases) {
      const { status, body } = await pending;
      expect({ name, status, body }).toEqual({ name, status: 400, body: { error, error_description: description } });
    }
    const wrongGrant = await fetch(account.tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    });
    expect(wrongGrant.status).toBe(400);
    expect(await wrongGrant.json()).toMatchObject({ error: 'unsupported_grant_type' });
  });

  it('answers 401 for a token it never issued or one that expired, and 403 for a token without the Wallet scope', async () => {
    const unknown = await api('GET', `/genericObject/${OBJECT_ID}`, undefined, 'ya29.made-up');
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED', message: expect.stringContaining('invalid authentication credentials') });
    expect(unknown.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const other = await requestToken(account.tokenUri, await assertion(account, { scope: 'https://www.googleapis.com/auth/cloud-platform' }));
    const wrongScope = await api('GET', `/genericObject/${OBJECT_ID}`, undefined, other.body.access_token);
    expect(wrongScope.status).toBe(403);
    expect(wrongScope.body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
  });

  it('inserts a class and an object, and answers 409 ALREADY_EXISTS to a second insert', async () => {
    const genericClass = { id: CLASS_ID };
    expect(await api('POST', '/genericClass', genericClass)).toMatchObject({ status: 200, body: genericClass });

    const object = {
      id: OBJECT_ID,
      classId: CLASS_ID,
      state: 'ACTIVE',
      cardTitle: { defaultValue: { language: 'en', value: 'Phantom' } },
      hexBackgroundColor: '#ab9ff2',
    };
    expect(await api('POST', '/genericObject', object)).toMatchObject({ status: 200, body: object });
    expect(await api('GET', `/genericObject/${OBJECT_ID}`)).toMatchObject({ status: 200, body: object });

    const again = await api('POST', '/genericObject', object);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: { code: 409, message: `Wallet Object {${OBJECT_ID}} already exists.`, status: 'ALREADY_EXISTS' } });
    expect((await api('POST', '/genericClass', genericClass)).body.error).toMatchObject({ code: 409, status: 'ALREADY_EXISTS' });
  });

  it('patches state INACTIVE, keeping the other fields, and reads it back', async () => {
    const patched = await api('PATCH', `/genericObject/${OBJECT_ID}`, { state: 'INACTIVE' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: OBJECT_ID, classId: CLASS_ID, state: 'INACTIVE', hexBackgroundColor: '#ab9ff2' });

    const read = await api('GET', `/genericObject/${OBJECT_ID}`);
    expect(read.body).toMatchObject({ state: 'INACTIVE', cardTitle: { defaultValue: { language: 'en', value: 'Phantom' } } });
    expect(google.object(OBJECT_ID)?.state).toBe('INACTIVE');
  });

  it('update (PUT) replaces the whole object', async () => {
    const replaced = { id: OBJECT_ID, classId: CLASS_ID, state: 'ACTIVE' };
    expect(await api('PUT', `/genericObject/${OBJECT_ID}`, replaced)).toMatchObject({ status: 200, body: replaced });
    expect(google.object(OBJECT_ID)).toEqual(replaced);
  });

  it('answers 404 NOT_FOUND for an unknown object or class, on get, patch and update', async () => {
    const missing = `${TEST_ISSUER_ID}.nobody`;
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { state: 'INACTIVE' }],
      ['PUT', { id: missing, classId: CLASS_ID }],
    ] as const) {
      const response = await api(method, `/genericObject/${missing}`, body);
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: { code: 404, message: `Wallet Object {${missing}} not found.`, status: 'NOT_FOUND' } });
    }
    expect((await api('GET', `/genericClass/${missing}`)).body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    // An object of a class that does not exist cannot be inserted.
    const orphan = await api('POST', '/genericObject', { id: `${TEST_ISSUER_ID}.orphan`, classId: `${TEST_ISSUER_ID}.no_class` });
    expect(orphan.body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
  });

  it('answers 400 INVALID_ARGUMENT for a body without id, an id of another issuer, a bad state, or a body that is not JSON', async () => {
    const bad: Array<[string, string, unknown]> = [
      ['POST', '/genericClass', { issuerName: 'no id' }],
      ['POST', '/genericClass', { id: 'wallet_pass' }],
      ['POST', '/genericClass', { id: '1234567890.wallet_pass' }],
      ['POST', '/genericObject', { id: `${TEST_ISSUER_ID}.x y`, classId: CLASS_ID }],
      ['PATCH', `/genericObject/${OBJECT_ID}`, { state: 'VOIDED' }],
    ];
    for (const [method, path, body] of bad) {
      const response = await api(method, path, body);
      expect({ path, body, status: response.status, error: response.body.error?.status }).toEqual({ path, body, status: 400, error: 'INVALID_ARGUMENT' });
    }
    const notJson = await fetch(`${google.apiUrl}/genericClass`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(notJson.status).toBe(400);
    expect(await notJson.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });

  it('fails the next N calls with the given status and no effect, then works again (for retry tests)', async () => {
    google.failNext(2, 503);
    const first = await api('PATCH', `/genericObject/${OBJECT_ID}`, { state: 'EXPIRED' });
    const second = await api('PATCH', `/genericObject/${OBJECT_ID}`, { state: 'EXPIRED' });
    expect(first).toMatchObject({ status: 503, body: { error: { code: 503, status: 'UNAVAILABLE' } } });
    expect(second.status).toBe(503);
    expect(google.object(OBJECT_ID)?.state).toBe('ACTIVE');
    expect(await api('PATCH', `/genericObject/${OBJECT_ID}`, { state: 'EXPIRED' })).toMatchObject({ status: 200, body: { state: 'EXPIRED' } });
  });

  it('turns issued tokens into expired ones on demand: the next call is 401 until a new token is fetched', async () => {
    google.expireTokens();
    expect((await api('GET', `/genericObject/${OBJECT_ID}`)).status).toBe(401);
    accessToken = (await requestToken(account.tokenUri, await assertion(account))).body.access_token;
    expect((await api('GET', `/genericObject/${OBJECT_ID}`)).status).toBe(200);
  });

  it('records every request: method, path, body and status, token requests with their form fields', () => {
    const token = google.requests.find((r) => r.path === '/token' && r.status === 200)!;
    expect(token).toMatchObject({ method: 'POST', body: { grant_type: JWT_BEARER_GRANT, assertion: expect.any(String) }, at: expect.any(Date) });
    const patch = google.requests.find((r) => r.method === 'PATCH' && r.status === 200)!;
    expect(patch).toMatchObject({ path: `/walletobjects/v1/genericObject/${OBJECT_ID}`, body: { state: 'INACTIVE' } });
    expect(google.requests.filter((r) => r.status === 503)).toHaveLength(2);
  });

  it('accepts a service account made before it started', async () => {
    const early = testServiceAccount();
    const other = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID, serviceAccount: early });
    try {
      expect(other.serviceAccount).toBe(early);
      // The key file still names Google's endpoint, so the client posts here but writes Google's `aud`.
      const { status } = await requestToken(other.tokenUrl, await assertion(early, {}, GOOGLE_TOKEN_URI));
      expect(status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('Google Wallet API stand-in: addMessage, the notification quota and the rate limit', () => {
  let google: GoogleWalletApiStandIn;
  let accessToken: string;
  let now = Date.now();

  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${google.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
  };
  const addMessage = (id: string, messageType: string) =>
    api('POST', `/genericObject/${OBJECT_ID}/addMessage`, { message: { id, header: 'Gala', body: `message ${id}`, messageType } });

  beforeAll(async () => {
    google = await GoogleWalletApiStandIn.start({ issuerId: TEST_ISSUER_ID, now: () => now });
    accessToken = (await requestToken(google.tokenUrl, await assertion(google.serviceAccount))).body.access_token;
    await api('POST', '/genericClass', { id: CLASS_ID });
    await api('POST', '/genericObject', { id: OBJECT_ID, classId: CLASS_ID, state: 'ACTIVE' });
  });
  afterAll(() => google.close());

  it('adds messages to the object and answers {resource}; 404 for an unknown object, 400 for a bad type', async () => {
    const added = await addMessage('m1', 'TEXT');
    expect(added.status).toBe(200);
    expect(added.body.resource).toMatchObject({ id: OBJECT_ID, messages: [{ id: 'm1', header: 'Gala', body: 'message m1', messageType: 'TEXT' }] });
    expect((await api('POST', `/genericObject/${TEST_ISSUER_ID}.nope/addMessage`, { message: { id: 'x' } })).status).toBe(404);
    expect((await addMessage('m2', 'LOUD')).status).toBe(400);
    expect(google.messages(OBJECT_ID)).toHaveLength(1);
  });

  it('refuses a 4th TEXT_AND_NOTIFY in 24 hours with QuotaExceededException, takes TEXT, and notifies again a day later', async () => {
    for (const id of ['n1', 'n2', 'n3']) expect((await addMessage(id, 'TEXT_AND_NOTIFY')).status).toBe(200);
    const refused = await addMessage('n4', 'TEXT_AND_NOTIFY');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', message: expect.stringMatching(/^QuotaExceededException/) });
    expect((await addMessage('n4', 'TEXT')).status).toBe(200);
    now += 24 * 3600 * 1000 + 1;
    expect((await addMessage('n5', 'TEXT_AND_NOTIFY')).status).toBe(200);
    expect(google.messages(OBJECT_ID).map((m) => m.id)).toEqual(['m1', 'n1', 'n2', 'n3', 'n4', 'n5']);
  });

  it('answers 429 RESOURCE_EXHAUSTED with Retry-After past the rate it is given', async () => {
    google.limitRate(3, 2);
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await api('GET', `/genericObject/${OBJECT_ID}`));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
      expect(answers[3]!.headers.get('retry-after')).toBe('2');
      expect(answers[3]!.body.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED' });
      expect(google.rateLimited).toBe(1);
    } finally {
      google.limitRate(undefined);
    }
  });
});
