// The operator API (CONTRACT.md "Operators"), through the real frame on a real database (PGlite,
// and PostgreSQL when TEST_DATABASE_URL is set): sign-in and its purpose separation from claims,
// sessions, the cookie and its CSRF check, API keys, the pass list, void and restore, statistics.
// Every answer is held against the OpenAPI document, and every documented answer is seen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS, openApiDocument } from '@/lib/api/endpoints';
import { DEFAULT_STATEMENT } from '@/lib/config';
import { tokenHash } from '@/lib/operators/auth';
import { OPERATOR_STATEMENT } from '@/lib/operators/sessions';
import { eventually } from '@/scripts/support/server-process';
import { BACKENDS, TestApp, TestWallet } from '../support/app';
import { ResponseChecker } from '../support/openapi';

const BASE = 'https://passes.example.com';

type Json = Record<string, any>;

describe.each(BACKENDS)('operator API on %s', (backend) => {
  const checker = new ResponseChecker(openApiDocument(BASE));
  const operator = new TestWallet();
  const secondOperator = new TestWallet();
  const stranger = new TestWallet();
  let app: TestApp;

  beforeAll(async () => {
    app = await TestApp.open(backend, { PUBLIC_BASE_URL: BASE, OPERATOR_WALLETS: `${operator.publicKey}, ${secondOperator.publicKey}` });
  });
  afterAll(() => app.close());

  /** Sends a request and checks the answer against the document's entry for `route`. */
  const call = async (method: string, route: string, path: string, init: RequestInit = {}): Promise<{ status: number; body: Json; headers: Headers }> => {
    const response = await app.fetch(path, { method, ...init });
    const headers = response.headers;
    const status = response.status;
    const body = ((await checker.check(method, route, response)) ?? {}) as Json;
    return { status, body, headers };
  };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const json = (body: unknown, headers: Record<string, string> = {}) => ({
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

  const SESSIONS = '/api/v1/operator/sessions';
  const INIT = '/api/v1/operator/sessions/init';
  const CURRENT = '/api/v1/operator/sessions/current';
  const PASSES = '/api/v1/operator/passes';
  const PASS = '/api/v1/operator/passes/{serialNumber}';
  const VOID = '/api/v1/operator/passes/{serialNumber}/void';
  const RESTORE = '/api/v1/operator/passes/{serialNumber}/restore';
  const KEYS = '/api/v1/operator/api-keys';
  const KEY = '/api/v1/operator/api-keys/{id}';
  const STATS = '/api/v1/operator/stats';
  const DELIVERIES = '/api/v1/operator/webhooks/deliveries';
  const RETRY = '/api/v1/operator/webhooks/deliveries/{id}/retry';

  const operatorMessage = async (wallet: TestWallet) => (await call('GET', INIT, `${INIT}?publicKey=${wallet.publicKey}`)).body as { message: string };
  const signedSession = async (wallet: TestWallet) => {
    const { message } = await operatorMessage(wallet);
    return { message, signature: wallet.sign(message), publicKey: wallet.publicKey };
  };
  const signIn = async (wallet = operator, headers: Record<string, string> = {}) => {
    const answer = await call('POST', SESSIONS, SESSIONS, json(await signedSession(wallet), headers));
    expect(answer.status).toBe(201);
    return answer;
  };
  /** Every endpoint that needs an operator, called with `headers` (and a valid body where it takes one). */
  const everyGuardedEndpoint = async (headers: Record<string, string>) => {
    const answers = [];
    for (const entry of ENDPOINTS.filter((e) => e.auth)) {
      const path = entry.path.replace('{serialNumber}', '00000000-0000-4000-8000-000000000000').replace('{id}', '1');
      const init = entry.body ? json(entry.body.example, headers) : { headers };
      answers.push({ entry: `${entry.method} ${entry.path}`, ...(await call(entry.method, entry.path, path, init)) });
    }
    return answers;
  };
  /** Claims a pass for a new wallet; its serial number. */
  const claimPass = async (wallet = new TestWallet()) => {
    const response = await app.claimWith(wallet, { walletType: 'Phantom' });
    expect(response.status).toBe(201);
    const [row] = await app.services.store.sql.query<{ serial_number: string }>(`select serial_number from passes where public_key = $1`, [wallet.publicKey]);
    return { serial: row!.serial_number, wallet };
  };

  describe('sign-in', () => {
    it('init answers like the claim init, with a statement that says it is for an operator session', async () => {
      const { body, headers } = await call('GET', INIT, `${INIT}?publicKey=${operator.publicKey}`);
      expect(headers.get('cache-control')).toBe('no-store');
      expect(body).toMatchObject({ domain: 'passes.example.com', address: operator.publicKey, uri: BASE, version: '1', statement: OPERATOR_STATEMENT });
      expect(body.statement).not.toBe(DEFAULT_STATEMENT);
      expect(body.message).toContain(OPERATOR_STATEMENT);
      expect(body.nonce).toMatch(/^[A-Za-z0-9]{16,}$/);
      expect((await call('GET', INIT, `${INIT}?publicKey=nope`)).body.code).toBe('invalid_request');
    });

    it('opens a 12-hour session: a random token, and the cookie (__Host-, HttpOnly, SameSite=Strict, Secure, Path=/)', async () => {
      const before = Date.now();
      const { body, headers } = await signIn(operator, { origin: BASE });
      expect(body.token).toMatch(/^wpcs_[A-Za-z0-9_-]{43}$/);
      expect(Date.parse(body.expiresAt) - before).toBeGreaterThan(12 * 3600_000 - 60_000);
      expect(Date.parse(body.expiresAt) - before).toBeLessThanOrEqual(12 * 3600_000 + 1000);
      const cookie = headers.get('set-cookie')!;
      // __Host-: only this origin, over https, may set it; a sibling subdomain cannot toss one in.
      expect(cookie).toMatch(new RegExp(`^__Host-operator_session=${body.token}; Path=/;`));
      expect(cookie).not.toMatch(/; Domain=/i);
      expect(cookie).toMatch(/; HttpOnly/);
      expect(cookie).toMatch(/; SameSite=Strict/);
      expect(cookie).toMatch(/; Secure/);
      expect(cookie).toMatch(/; Max-Age=43200/);
      // Stored only as its SHA-256.
      const rows = await app.services.store.sql.query<{ token_hash: string }>(`select token_hash from operator_sessions`);
      expect(rows.map((row) => row.token_hash)).toContain(tokenHash(body.token));
      expect(JSON.stringify(rows)).not.toContain(body.token);
      const current = await call('GET', CURRENT, CURRENT, { headers: bearer(body.token) });
      expect(current.body).toEqual({ publicKey: operator.publicKey, via: 'session', expiresAt: body.expiresAt });
    });

    it('gives no cookie to a request from another site (the token still, for what it is worth to a script)', async () => {
      const { headers } = await signIn(operator, { origin: 'https://evil.example' });
      expect(headers.get('set-cookie')).toBeNull();
    });

    it('refuses a wallet that is not an operator with 403 forbidden, after its signature verifies', async () => {
      const answer = await call('POST', SESSIONS, SESSIONS, json(await signedSession(stranger)));
      expect(answer.status).toBe(403);
      expect(answer.body.code).toBe('forbidden');
      const forged = await signedSession(stranger);
      const unsigned = await call('POST', SESSIONS, SESSIONS, json({ ...forged, signature: new TestWallet().sign(forged.message) }));
      expect(unsigned.body.code).toBe('signature_invalid');
    });

    it('never opens a session with a claim message, and a session message never claims a pass', async () => {
      const claim = await app.init(operator.publicKey);
      const asSession = await call(
        'POST',
        SESSIONS,
        SESSIONS,
        json({ message: claim.message, signature: operator.sign(claim.message), publicKey: operator.publicKey }),
      );
      expect(asSession.status).toBe(401);
      expect(asSession.body.code).toBe('message_not_issued');

      const session = await signedSession(operator);
      const asClaim = await app.postClaim(session);
      expect(asClaim.status).toBe(401);
      expect(((await asClaim.json()) as Json).code).toBe('message_not_issued');
      expect(await app.services.store.sql.query(`select 1 from passes where public_key = $1`, [operator.publicKey])).toEqual([]);
      // Both messages are still good for what they were issued for.
      expect((await call('POST', SESSIONS, SESSIONS, json(session))).status).toBe(201);
      expect((await app.postClaim({ message: claim.message, signature: operator.sign(claim.message), publicKey: operator.publicKey })).status).toBe(201);
    });

    it('answers altered, used and expired messages like the claim does', async () => {
      const session = await signedSession(operator);
      const altered = { ...session, message: session.message.replace('Sign in', 'Sign-in') };
      expect((await call('POST', SESSIONS, SESSIONS, json({ ...altered, signature: operator.sign(altered.message) }))).body.code).toBe('message_not_issued');
      expect((await call('POST', SESSIONS, SESSIONS, json(session))).status).toBe(201);
      expect((await call('POST', SESSIONS, SESSIONS, json(session))).body.code).toBe('message_already_used');

      const late = await signedSession(operator);
      await app.services.store.sql.query(`update sign_in_messages set expires_at = now() - interval '1 second' where message = $1`, [late.message]);
      expect((await call('POST', SESSIONS, SESSIONS, json(late))).body.code).toBe('message_expired');

      expect(
        (await call('POST', SESSIONS, SESSIONS, json({ message: 'hello', signature: operator.sign('hello'), publicKey: operator.publicKey }))).body.code,
      ).toBe('message_not_issued');
      expect((await call('POST', SESSIONS, SESSIONS, json({ publicKey: operator.publicKey }))).body.code).toBe('invalid_request');
      expect((await call('POST', SESSIONS, SESSIONS, { headers: { 'content-type': 'text/plain' }, body: '{}' })).body.code).toBe('unsupported_media_type');
      expect((await call('POST', SESSIONS, SESSIONS, json({ ...session, padding: 'x'.repeat(17 * 1024) }))).body.code).toBe('payload_too_large');
    });
  });

  describe('credentials', () => {
    it('401 unauthorized without one, with a malformed, forged, expired or revoked one', async () => {
      const expectUnauthorized = async (headers: Record<string, string>) => {
        const answer = await call('GET', PASSES, PASSES, { headers });
        expect(answer.status).toBe(401);
        expect(answer.body.code).toBe('unauthorized');
      };
      await expectUnauthorized({});
      await expectUnauthorized({ authorization: 'Basic b3A6b3A=' });
      await expectUnauthorized({ authorization: 'Bearer' });
      await expectUnauthorized(bearer('not-a-token'));
      // Forged: the right shape, never issued.
      await expectUnauthorized(bearer(`wpcs_${'A'.repeat(43)}`));
      await expectUnauthorized(bearer(`wpck_${'A'.repeat(43)}`));
      await expectUnauthorized({ cookie: `__Host-operator_session=wpcs_${'B'.repeat(43)}` });

      const { token } = (await signIn()).body;
      // A token is its own: its hash, or the same text with a changed letter, is nothing.
      await expectUnauthorized(bearer(tokenHash(token)));
      await expectUnauthorized(bearer(token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A')));
      expect((await call('GET', PASSES, PASSES, { headers: bearer(token) })).status).toBe(200);

      await app.services.store.sql.query(`update operator_sessions set expires_at = now() - interval '1 second' where token_hash = $1`, [tokenHash(token)]);
      await expectUnauthorized(bearer(token));

      const other = (await signIn()).body.token as string;
      const signOut = await call('DELETE', CURRENT, CURRENT, { headers: bearer(other) });
      expect(signOut.status).toBe(204);
      expect(signOut.headers.get('set-cookie')).toMatch(/^__Host-operator_session=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0; Secure$/);
      await expectUnauthorized(bearer(other));
      expect((await call('DELETE', CURRENT, CURRENT, { headers: bearer(other) })).status).toBe(401);
    });

    it('every operator endpoint answers 401 without a credential', async () => {
      const answers = await everyGuardedEndpoint({});
      expect(answers.length).toBeGreaterThanOrEqual(12);
      for (const answer of answers) expect([answer.entry, answer.status, answer.body.code]).toEqual([answer.entry, 401, 'unauthorized']);
    });

    it('a claim’s download id is not a credential', async () => {
      const response = await app.claimWith(new TestWallet());
      const { downloadUrl } = (await response.json()) as { downloadUrl: string };
      const passId = new URL(downloadUrl).searchParams.get('pass')!;
      expect((await call('GET', PASSES, PASSES, { headers: bearer(passId) })).status).toBe(401);
    });

    it('checks the credential before the input: no validation details without one', async () => {
      const answer = await call('GET', PASSES, `${PASSES}?status=lost`);
      expect(answer.body.code).toBe('unauthorized');
    });

    describe('the session cookie and its CSRF check', () => {
      let cookie: string;
      let serial: string;
      beforeAll(async () => {
        const { body } = await signIn(operator, { origin: BASE });
        cookie = `__Host-operator_session=${body.token}`;
        serial = (await claimPass()).serial;
      });
      const voidWith = (headers: Record<string, string>) =>
        call('POST', VOID, `${PASSES}/${serial}/void`, json({ reason: 'csrf check' }, { cookie, ...headers }));

      it('tries every value of the cookie: one tossed in beside it does not sign the operator out', async () => {
        const junk = `__Host-operator_session=junk; __Host-operator_session=wpcs_${'C'.repeat(43)}`;
        for (const header of [`${junk}; ${cookie}`, `${cookie}; ${junk}`, `theme=dark; ${junk}; ${cookie}`]) {
          expect((await call('GET', CURRENT, CURRENT, { headers: { cookie: header } })).body.via, header).toBe('session');
        }
        expect((await call('GET', CURRENT, CURRENT, { headers: { cookie: junk } })).body.code).toBe('unauthorized');
        // Without its prefix, on an https origin, the name is anyone's to set: not a credential.
        expect((await call('GET', CURRENT, CURRENT, { headers: { cookie: cookie.replace('__Host-', '') } })).body.code).toBe('unauthorized');
      });

      it('reads with the cookie alone (GET is safe)', async () => {
        expect((await call('GET', PASSES, PASSES, { headers: { cookie, origin: 'https://evil.example' } })).status).toBe(200);
        expect((await call('GET', CURRENT, CURRENT, { headers: { cookie } })).body.via).toBe('session');
      });

      it('refuses a POST or DELETE with the cookie from another site, or from a page that says nothing', async () => {
        for (const headers of <Record<string, string>[]>[
          {},
          { origin: 'https://evil.example' },
          { origin: 'null' },
          { 'sec-fetch-site': 'cross-site' },
          { 'sec-fetch-site': 'same-site' },
          { origin: 'http://passes.example.com' },
        ]) {
          const answer = await voidWith(headers);
          expect(answer.status, JSON.stringify(headers)).toBe(403);
          expect(answer.body.code).toBe('forbidden');
        }
        expect((await call('DELETE', CURRENT, CURRENT, { headers: { cookie, origin: 'https://evil.example' } })).status).toBe(403);
        const [row] = await app.services.store.sql.query<{ status: string }>(`select status from passes where serial_number = $1`, [serial]);
        expect(row!.status).toBe('active');
      });

      it('accepts one from our own origin (Origin, or Sec-Fetch-Site: same-origin)', async () => {
        expect((await voidWith({ origin: BASE })).body.status).toBe('voided');
        expect((await call('POST', RESTORE, `${PASSES}/${serial}/restore`, { headers: { cookie, 'sec-fetch-site': 'same-origin' } })).body.status).toBe(
          'active',
        );
      });

      it('a Bearer token needs no such check: a page elsewhere cannot make a browser send it', async () => {
        const { token } = (await signIn()).body;
        expect((await call('POST', RESTORE, `${PASSES}/${serial}/restore`, { headers: { ...bearer(token), origin: 'https://evil.example' } })).status).toBe(
          200,
        );
      });
    });
  });

  describe('API keys', () => {
    it('creates a key shown once (no body needed), lists it without secrets, works as Bearer, records its use, revokes', async () => {
      const { token } = (await signIn()).body;
      const created = await call('POST', KEYS, KEYS, { headers: bearer(token) });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ id: expect.stringMatching(/^key_/), name: null, createdBy: operator.publicKey, lastUsedAt: null });
      const key = created.body.key as string;
      expect(key).toMatch(/^wpck_[A-Za-z0-9_-]{43}$/);

      const named = await call('POST', KEYS, KEYS, json({ name: 'nightly export' }, bearer(token)));
      expect(named.body.name).toBe('nightly export');

      const listed = await call('GET', KEYS, KEYS, { headers: bearer(key) });
      expect(listed.status).toBe(200);
      const ids = listed.body.apiKeys.map((k: Json) => k.id);
      expect(ids).toEqual(expect.arrayContaining([created.body.id, named.body.id]));
      expect(JSON.stringify(listed.body)).not.toContain(key);
      expect(JSON.stringify(listed.body)).not.toContain(tokenHash(key));
      const mine = listed.body.apiKeys.find((k: Json) => k.id === created.body.id);
      expect(Date.parse(mine.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(created.body.createdAt));
      const stored = await app.services.store.sql.query(`select * from operator_api_keys`);
      expect(JSON.stringify(stored)).not.toContain(key);

      expect((await call('GET', CURRENT, CURRENT, { headers: bearer(key) })).body).toEqual({ publicKey: operator.publicKey, via: 'api_key', expiresAt: null });
      // A key makes no keys: they would outlive it, and a leaked key could mint itself successors.
      const fromKey = await call('POST', KEYS, KEYS, json({ name: 'child' }, bearer(key)));
      expect(fromKey.status).toBe(403);
      expect(fromKey.body.code).toBe('forbidden');
      expect(fromKey.body.detail).toMatch(/session/);
      expect((await app.services.store.sql.query(`select 1 from operator_api_keys where name = 'child'`)).length).toBe(0);
      // A key is not a session to sign out of.
      expect((await call('DELETE', CURRENT, CURRENT, { headers: bearer(key) })).body.code).toBe('forbidden');

      expect((await call('DELETE', KEY, `${KEYS}/${created.body.id}`, { headers: bearer(token) })).status).toBe(204);
      expect((await call('GET', PASSES, PASSES, { headers: bearer(key) })).body.code).toBe('unauthorized');
      expect((await call('DELETE', KEY, `${KEYS}/${created.body.id}`, { headers: bearer(token) })).status).toBe(204); // again: no error
      const after = await call('GET', KEYS, KEYS, { headers: bearer(token) });
      expect(after.body.apiKeys.map((k: Json) => k.id)).not.toContain(created.body.id);

      expect((await call('DELETE', KEY, `${KEYS}/key_unknown`, { headers: bearer(token) })).body.code).toBe('api_key_not_found');
      expect((await call('DELETE', KEY, `${KEYS}/${'x'.repeat(100)}`, { headers: bearer(token) })).body.code).toBe('api_key_not_found');
      expect((await call('POST', KEYS, KEYS, json({ name: '' }, bearer(token)))).body.code).toBe('invalid_request');
      const bidiName = await call('POST', KEYS, KEYS, json({ name: 'export\u202etxt.exe' }, bearer(token)));
      expect(bidiName.body.code).toBe('invalid_request');
      expect(bidiName.body.fields).toEqual([{ field: 'name', message: expect.stringMatching(/bidirectional/) }]);
      expect((await call('POST', KEYS, KEYS, { headers: { ...bearer(token), 'content-type': 'text/plain' }, body: 'name' })).body.code).toBe(
        'unsupported_media_type',
      );
      expect((await call('POST', KEYS, KEYS, json({ name: 'x'.repeat(17 * 1024) }, bearer(token)))).body.code).toBe('payload_too_large');
    });
  });

  describe('passes', () => {
    let token: string;
    beforeAll(async () => {
      token = (await signIn()).body.token;
    });
    const get = (path: string) => call('GET', path.startsWith(`${PASSES}/`) ? PASS : PASSES, path, { headers: bearer(token) });

    it('lists passes newest first, pages with an opaque cursor without repeats or gaps, and filters', async () => {
      const claimed = [];
      for (let i = 0; i < 5; i++) claimed.push(await claimPass());
      const all = (await get(`${PASSES}?limit=200`)).body.passes as Json[];
      const order = all.map((p) => `${p.claimedAt} ${p.serialNumber}`);
      expect(order).toEqual([...order].sort().reverse());

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page: Json = (await get(`${PASSES}?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).body;
        expect(page.passes.length).toBeLessThanOrEqual(2);
        seen.push(...page.passes.map((p: Json) => p.serialNumber));
        cursor = page.nextCursor;
        pages++;
        if (pages === 1) await claimPass(); // a claim while paging: newer, so never in a later page
      } while (cursor);
      expect(seen).toEqual(all.map((p) => p.serialNumber));
      expect(new Set(seen).size).toBe(seen.length);

      const one = claimed[2]!;
      const byKey = (await get(`${PASSES}?publicKey=${one.wallet.publicKey}`)).body.passes;
      expect(byKey).toEqual([
        {
          serialNumber: one.serial,
          publicKey: one.wallet.publicKey,
          program: 'default',
          walletType: 'Phantom',
          claimedAt: expect.any(String),
          status: 'active',
          voidReason: null,
          expirationDate: null,
          relevantDate: null,
          updatedAt: expect.any(String),
          devices: 0,
        },
      ]);
      expect(byKey[0].updatedAt).toBe(byKey[0].claimedAt);
      expect(JSON.stringify(byKey)).not.toMatch(/download/i);
      expect((await get(`${PASSES}?serial=${one.serial.toUpperCase()}`)).body.passes.map((p: Json) => p.serialNumber)).toEqual([one.serial]);
      expect((await get(`${PASSES}?serial=00000000-0000-4000-8000-000000000000`)).body).toEqual({ passes: [], nextCursor: null });
      expect((await get(`${PASS.replace('{serialNumber}', one.serial)}`)).body.serialNumber).toBe(one.serial);
      expect((await get(`${PASSES}/00000000-0000-4000-8000-000000000000`)).body.code).toBe('pass_not_found');

      // Devices registered for a pass are counted.
      await app.services.store.sql.query(
        `insert into device_registrations (device_library_identifier, serial_number, push_token, created_at) values ('device-a', $1, 'token-a', now()), ('device-b', $1, 'token-b', now())`,
        [one.serial],
      );
      expect((await get(`${PASSES}?serial=${one.serial}`)).body.passes[0].devices).toBe(2);

      for (const query of [
        'status=lost',
        'limit=0',
        'limit=201',
        'limit=two',
        'cursor=garbage',
        'publicKey=nope',
        'serial=nope',
        `cursor=${'x'.repeat(600)}`,
      ]) {
        const answer = await get(`${PASSES}?${query}`);
        expect(answer.status, query).toBe(400);
        expect(answer.body.code).toBe('invalid_request');
      }
    });

    it('voids and restores: 200 with the pass, updatedAt moves, the change is queued; filters by status', async () => {
      const { serial } = await claimPass();
      const before = (await get(`${PASSES}?serial=${serial}`)).body.passes[0];
      const voided = await call('POST', VOID, `${PASSES}/${serial}/void`, json({ reason: 'ticket refunded' }, bearer(token)));
      expect(voided.status).toBe(200);
      expect(voided.body).toMatchObject({ serialNumber: serial, status: 'voided', voidReason: 'ticket refunded' });
      expect(Date.parse(voided.body.updatedAt)).toBeGreaterThan(Date.parse(before.updatedAt));
      expect((await get(`${PASSES}?status=voided`)).body.passes.map((p: Json) => p.serialNumber)).toContain(serial);
      expect((await get(`${PASSES}?status=active`)).body.passes.map((p: Json) => p.serialNumber)).not.toContain(serial);

      // Again, same reason: nothing changes. Another reason: replaced.
      const again = await call('POST', VOID, `${PASSES}/${serial}/void`, json({ reason: 'ticket refunded' }, bearer(token)));
      expect(again.body.updatedAt).toBe(voided.body.updatedAt);
      const changed = await call('POST', VOID, `${PASSES}/${serial}/void`, json({ reason: 'duplicate' }, bearer(token)));
      expect(changed.body.voidReason).toBe('duplicate');

      const restored = await call('POST', RESTORE, `${PASSES}/${serial}/restore`, { headers: bearer(token) });
      expect(restored.body).toMatchObject({ status: 'active', voidReason: null });
      expect(Date.parse(restored.body.updatedAt)).toBeGreaterThan(Date.parse(changed.body.updatedAt));
      expect((await call('POST', RESTORE, `${PASSES}/${serial}/restore`, { headers: bearer(token) })).body.updatedAt).toBe(restored.body.updatedAt);

      // Each change queued one pass.changed job (for the devices); no webhook without WEBHOOK_URL,
      // neither for the changes nor for any claim so far.
      const jobs = await app.services.store.sql.query<{ kind: string }>(`select kind from jobs where payload->>'serialNumber' = $1 order by id`, [serial]);
      expect(jobs.map((job) => job.kind)).toEqual(['pass.changed', 'pass.changed', 'pass.changed']);
      expect(await app.services.store.sql.query(`select id from jobs where kind = 'webhook'`)).toEqual([]);

      const unknown = '00000000-0000-4000-8000-000000000000';
      expect((await call('POST', VOID, `${PASSES}/${unknown}/void`, json({ reason: 'x' }, bearer(token)))).body.code).toBe('pass_not_found');
      expect((await call('POST', RESTORE, `${PASSES}/${unknown}/restore`, { headers: bearer(token) })).body.code).toBe('pass_not_found');
      expect((await call('POST', VOID, `${PASSES}/${serial}/void`, json({ reason: '' }, bearer(token)))).body.code).toBe('invalid_request');
      expect((await call('POST', VOID, `${PASSES}/${serial}/void`, json({ reason: 'two\nlines' }, bearer(token)))).body.code).toBe('invalid_request');
      // Bidirectional controls would show door staff a reason that reads otherwise than it is.
      for (const control of ['\u202a', '\u202e', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c']) {
        const bidi = await call('POST', VOID, `${PASSES}/${serial}/void`, json({ reason: `refunded ${control}dnuf` }, bearer(token)));
        expect(bidi.status).toBe(400);
        expect(bidi.body.code).toBe('invalid_request');
        expect(bidi.body.fields).toEqual([{ field: 'reason', message: expect.stringMatching(/bidirectional/) }]);
      }
      expect((await get(`${PASSES}?serial=${serial}`)).body.passes[0].status).toBe('active');
      // Letters of right-to-left scripts are text, not controls.
      expect((await call('POST', VOID, `${PASSES}/${serial}/void`, json({ reason: 'הוחזר' }, bearer(token)))).body.voidReason).toBe('הוחזר');
      await call('POST', RESTORE, `${PASSES}/${serial}/restore`, { headers: bearer(token) });
      expect((await call('POST', VOID, `${PASSES}/${serial}/void`, json({}, bearer(token)))).body.code).toBe('invalid_request');
      expect((await call('POST', VOID, `${PASSES}/${serial}/void`, { headers: bearer(token) })).body.code).toBe('unsupported_media_type');
      expect((await call('POST', VOID, `${PASSES}/${serial}/void`, json({ reason: 'x'.repeat(17 * 1024) }, bearer(token)))).body.code).toBe(
        'payload_too_large',
      );
    });

    it('sets and clears a pass’s dates: 200 with the pass, updatedAt moves only on a change, the change is queued', async () => {
      const { serial } = await claimPass();
      const patch = (body: unknown, path = `${PASSES}/${serial}`) => call('PATCH', PASS, path, json(body, bearer(token)));
      const set = await patch({ expirationDate: '2030-06-01T18:00:00+02:00', relevantDate: '2030-05-31T20:00:00Z' });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({
        serialNumber: serial,
        status: 'active',
        expirationDate: '2030-06-01T16:00:00.000Z',
        relevantDate: '2030-05-31T20:00:00.000Z',
      });
      expect(Date.parse(set.body.updatedAt)).toBeGreaterThan(Date.parse(set.body.claimedAt));

      // The same instant, written another way: nothing changes. null removes one date; the other stays.
      expect((await patch({ expirationDate: '2030-06-01T16:00:00Z' })).body.updatedAt).toBe(set.body.updatedAt);
      const cleared = await patch({ relevantDate: null });
      expect(cleared.body).toMatchObject({ expirationDate: '2030-06-01T16:00:00.000Z', relevantDate: null });
      expect(Date.parse(cleared.body.updatedAt)).toBeGreaterThan(Date.parse(set.body.updatedAt));
      expect((await get(`${PASSES}?serial=${serial}`)).body.passes[0]).toMatchObject({ expirationDate: '2030-06-01T16:00:00.000Z', relevantDate: null });
      const jobs = await app.services.store.sql.query<{ kind: string }>(`select kind from jobs where payload->>'serialNumber' = $1 order by id`, [serial]);
      expect(jobs.map((job) => job.kind)).toEqual(['pass.changed', 'pass.changed']);

      expect((await patch({ expirationDate: null }, `${PASSES}/00000000-0000-4000-8000-000000000000`)).body.code).toBe('pass_not_found');
      for (const body of [
        {},
        { expirationDate: '2030-06-01' },
        { expirationDate: '2030-06-01T16:00:00' },
        { expirationDate: '1999-12-31T23:00:00Z' },
        { relevantDate: 5 },
        { expirationDate: 'soon' },
      ]) {
        const answer = await patch(body);
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body.code).toBe('invalid_request');
      }
      expect((await call('PATCH', PASS, `${PASSES}/${serial}`, { method: 'PATCH', headers: bearer(token) })).body.code).toBe('unsupported_media_type');
      expect((await patch({ expirationDate: 'x'.repeat(17 * 1024) })).body.code).toBe('payload_too_large');
      // Nothing above changed it.
      expect((await get(`${PASSES}/${serial}`)).body.updatedAt).toBe(cleared.body.updatedAt);
    });

    it('shows the claim policy and the last re-check round: none of either here', async () => {
      const ELIGIBILITY = '/api/v1/operator/eligibility';
      const { status, body } = await call('GET', ELIGIBILITY, ELIGIBILITY, { headers: bearer(token) });
      expect(status).toBe(200);
      expect(body).toEqual({ policy: null, recheckSeconds: 3600, lastRound: null });
    });

    it('counts passes, states and devices, and claims on each of the last 30 UTC days', async () => {
      const { serial } = await claimPass();
      await call('POST', VOID, `${PASSES}/${serial}/void`, json({ reason: 'stats' }, bearer(token)));
      // A claim 40 days ago is outside the window; one 3 days ago is in it.
      const old = await claimPass();
      const recent = await claimPass();
      await app.services.store.sql.query(`update passes set claimed_at = now() - interval '40 days' where serial_number = $1`, [old.serial]);
      await app.services.store.sql.query(`update passes set claimed_at = now() - interval '3 days' where serial_number = $1`, [recent.serial]);

      const { body } = await call('GET', STATS, STATS, { headers: bearer(token) });
      const bad = await call('GET', STATS, `${STATS}?program=Not%20A%20Slug`, { headers: bearer(token) });
      expect([bad.status, bad.body.fields?.[0]?.field]).toEqual([400, 'program']);
      const [counts] = await app.services.store.sql.query<{ passes: number; voided: number; today: number; devices: number }>(
        `select count(*)::int as passes, count(*) filter (where status = 'voided')::int as voided,
                count(*) filter (where claimed_at >= date_trunc('day', now() at time zone 'UTC') at time zone 'UTC')::int as today,
                (select count(*)::int from device_registrations) as devices
         from passes`,
      );
      expect(body).toMatchObject({
        passes: counts!.passes,
        voided: counts!.voided,
        active: counts!.passes - counts!.voided,
        devicesRegistered: counts!.devices,
      });
      expect(body.voided).toBeGreaterThan(0);
      const days = body.claimsPerDay as { date: string; count: number }[];
      expect(days).toHaveLength(30);
      const today = new Date().toISOString().slice(0, 10);
      expect(days.at(-1)).toEqual({ date: today, count: counts!.today });
      const threeDaysAgo = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);
      expect(days.find((day) => day.date === threeDaysAgo)!.count).toBeGreaterThanOrEqual(1);
      for (let i = 1; i < days.length; i++) expect(Date.parse(days[i]!.date) - Date.parse(days[i - 1]!.date)).toBe(86_400_000);
      expect(days.reduce((sum, day) => sum + day.count, 0)).toBe(counts!.passes - 1); // all but the one 40 days ago
    });
  });

  describe('webhook deliveries without WEBHOOK_URL', () => {
    it('lists none, and a retry of an unknown delivery is 404', async () => {
      const { token } = (await signIn()).body;
      expect((await call('GET', DELIVERIES, DELIVERIES, { headers: bearer(token) })).body).toEqual({ deliveries: [], nextCursor: null });
      // An event left from when WEBHOOK_URL was set: given up at once, and a retry cannot help.
      const [id] = await app.services.store.jobs.enqueue({
        kind: 'webhook',
        payload: {
          id: 'msg_left',
          type: 'pass.created',
          timestamp: new Date().toISOString(),
          data: { serialNumber: 's', publicKey: 'k', walletType: 'Generic' },
        },
      });
      const failed = await eventually(
        async () => {
          const { body } = await call('GET', DELIVERIES, `${DELIVERIES}?status=failed`, { headers: bearer(token) });
          return body.deliveries.length ? body.deliveries[0] : undefined;
        },
        10_000,
        'delivery given up',
      );
      expect(failed).toMatchObject({ id: String(id), eventId: 'msg_left', type: 'pass.created', status: 'failed', attempts: 1, nextAttemptAt: null });
      expect(failed.lastError).toMatch(/WEBHOOK_URL/);
      const retried = await call('POST', RETRY, `${DELIVERIES}/${id}/retry`, { headers: bearer(token) });
      expect(retried.status).toBe(200);
      expect(retried.body).toMatchObject({ id: String(id), failedAt: null });
      expect(['pending', 'sending', 'failed']).toContain(retried.body.status);
      expect((await call('GET', DELIVERIES, `${DELIVERIES}?status=lost`, { headers: bearer(token) })).body.code).toBe('invalid_request');
      expect((await call('POST', RETRY, `${DELIVERIES}/12345/retry`, { headers: bearer(token) })).body.code).toBe('delivery_not_found');
      expect((await call('POST', RETRY, `${DELIVERIES}/abc/retry`, { headers: bearer(token) })).body.code).toBe('delivery_not_found');
    });
  });

  describe('a wallet removed from OPERATOR_WALLETS', () => {
    it('loses its sessions and API keys at once: 403 forbidden', async () => {
      const session = (await signIn(secondOperator)).body.token as string;
      const key = (await call('POST', KEYS, KEYS, { headers: bearer(session) })).body.key as string;
      await app.restart({ OPERATOR_WALLETS: operator.publicKey });
      for (const credential of [session, key]) {
        for (const answer of await everyGuardedEndpoint(bearer(credential))) {
          expect([answer.entry, answer.status, answer.body.code]).toEqual([answer.entry, 403, 'forbidden']);
        }
      }
      expect((await call('GET', STATS, STATS, { headers: bearer((await signIn(operator)).body.token) })).status).toBe(200);
    });

    it('and with no OPERATOR_WALLETS, nobody signs in', async () => {
      await app.restart({ OPERATOR_WALLETS: '' });
      expect((await call('POST', SESSIONS, SESSIONS, json(await signedSession(operator)))).body.code).toBe('forbidden');
    });
  });

  it('every documented answer of the operator endpoints was seen (but 500 and 503, held to the document in openapi.test.ts)', () => {
    // The programs' endpoints are held to the document in programs.test.ts, check-in's in check-in.test.ts,
    // the updates' (and messages') in test/living/updates.test.ts.
    const mine = (response: string) =>
      response.split(' ')[1]!.startsWith('/api/v1/operator/') &&
      !response.split(' ')[1]!.startsWith('/api/v1/operator/programs') &&
      !response.split(' ')[1]!.startsWith('/api/v1/operator/check-ins') &&
      !response.split(' ')[1]!.startsWith('/api/v1/operator/updates') &&
      !/ (500|503)$/.test(response);
    const documented = checker.documentedResponses().filter(mine).sort();
    expect(documented.length).toBeGreaterThan(30);
    // 429 is the shared per-IP limit, seen on the claim endpoints; these two share its code path.
    const limited = documented.filter((response) => response.endsWith(' 429'));
    expect(limited.sort()).toEqual([`GET ${INIT} 429`, `POST ${SESSIONS} 429`]);
    expect(checker.seenResponses().filter(mine).sort()).toEqual(documented.filter((response) => !response.endsWith(' 429')));
  });
});
