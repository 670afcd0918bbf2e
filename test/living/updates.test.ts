// Messages and updates (CONTRACT.md "Reaching every holder"), through the operator API, against
// the APNs stand-in over real sockets and a webhook receiver, on PGlite and PostgreSQL: a message
// reaches every registered device of the program's active passes once and changes each pass's
// file (a back field with changeMessage `%@`); the update records its counts and finishes once
// (update.finished sent once); a 410 or BadDeviceToken removes the registration, a 500 is pushed
// again after the queue's backoff; a batch run twice counts its devices once; the refused
// messages send nothing.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '@/lib/api/endpoints';
import { ApnsClient } from '@/lib/passes/apns';
import { eventually } from '@/scripts/support/server-process';
import { BACKENDS, TestApp, TestWallet } from '../support/app';
import { ResponseChecker } from '../support/openapi';
import { inspectPkpass } from '../support/pkpass';
import { ApnsStandIn } from '../support/stand-ins/apns';
import { createCertificateAuthority, issuePassTypeCertificate } from '../support/stand-ins/certificates';
import { newWebhookSecret, WebhookReceiver } from '../support/stand-ins/webhook-receiver';
import { device, installPass, newPushToken } from './support';

const BASE = 'https://passes.example.com';
const DESIGN = { style: 'eventTicket', backgroundColor: '#102030', fields: { primary: [{ key: 'holder', label: 'Guest', value: '{shortAddress}' }] } };

type Json = Record<string, unknown>;
type UpdateJson = {
  id: string;
  program: string;
  kind: string;
  status: string;
  passes: number;
  devicesTotal: number;
  devicesPushed: number;
  devicesFailed: number;
  startedAt: string;
  finishedAt: string | null;
};

const MESSAGES = '/api/v1/operator/programs/{slug}/messages';
const UPDATES = '/api/v1/operator/updates';
const UPDATE = '/api/v1/operator/updates/{id}';

describe.each(BACKENDS)('messages and updates on %s', (backend) => {
  const checker = new ResponseChecker(openApiDocument(BASE));
  let app: TestApp;
  let apns: ApnsStandIn;
  let receiver: WebhookReceiver;
  let token: string;
  const operator = new TestWallet();

  beforeAll(async () => {
    apns = await ApnsStandIn.start();
    receiver = await WebhookReceiver.start();
    app = await TestApp.open(backend, {
      PUBLIC_BASE_URL: BASE,
      OPERATOR_WALLETS: operator.publicKey,
      PASSKIT_TOKEN_KEY: randomBytes(32).toString('base64'),
      APNS_URL: apns.url,
      WEBHOOK_URL: receiver.url,
      WEBHOOK_SECRET: newWebhookSecret(),
      JOB_RETRY_BASE_MS: '50',
      DEVICES_PER_PASS: '20',
    });
    pushTo(apns);
    token = await app.operatorToken(operator);
  });
  afterAll(async () => {
    await app.close();
    await receiver.close();
    await apns.close();
  });

  /** The app's APNs client, given a pass type certificate for its topic and the stand-in's CA. */
  const pushTo = (standIn: ApnsStandIn) => {
    const topic = app.services.living.passTypeIdentifier;
    const client = issuePassTypeCertificate(createCertificateAuthority('Test WWDR CA'), topic);
    app.services.living.apns = new ApnsClient({ url: standIn.url, certPem: client.certPem, keyPem: client.keyPem, topic, ca: standIn.caPem });
  };

  /** The route of this file's own endpoints, whose answers are held to the OpenAPI document. */
  const routeOf = (path: string) =>
    /^\/api\/v1\/operator\/programs\/[^/]+\/messages$/.test(path)
      ? MESSAGES
      : /^\/api\/v1\/operator\/updates\/[^/]+$/.test(path)
        ? UPDATE
        : path === UPDATES
          ? UPDATES
          : undefined;
  const send = async (method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) => {
    const response = await app.fetch(path, { method, ...init });
    const route = routeOf(path);
    const json = (route ? await checker.check(method, route, response) : await response.json()) as Json;
    return { status: response.status, json };
  };
  const call = (method: string, path: string, body?: unknown) =>
    send(method, path, {
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const message = (slug: string, text: unknown) => call('POST', `/api/v1/operator/programs/${slug}/messages`, { text });
  const getUpdate = async (id: string) => (await call('GET', `/api/v1/operator/updates/${id}`)).json as unknown as UpdateJson;
  const finished = (id: string) =>
    eventually(
      async () => {
        const update = await getUpdate(id);
        return update.status === 'done' ? update : undefined;
      },
      15_000,
      `update ${id} done`,
    );
  const finishedEvents = (id: string) =>
    receiver
      .accepted()
      .map((request) => JSON.parse(request.body) as { type: string; data: Json })
      .filter((event) => event.type === 'update.finished' && event.data.id === id);
  const count = async (text: string, params: unknown[] = []) => (await app.services.store.sql.query<{ n: number }>(text, params))[0]!.n;

  let slugs = 0;
  const newProgram = async () => {
    const slug = `gala-${backend}-${++slugs}`;
    await app.createProgram(token, { slug, name: `Gala ${slugs}`, status: 'live', design: DESIGN });
    return { slug };
  };

  it('reaches every device of the active passes once, changes each pass file, and finishes the update once', async () => {
    const { slug } = await newProgram();
    const passes = [
      await installPass(app, new TestWallet(), slug),
      await installPass(app, new TestWallet(), slug),
      await installPass(app, new TestWallet(), slug),
    ];
    const voided = await installPass(app, new TestWallet(), slug);
    const phones = [device(app, passes[0]!), device(app, passes[0]!), device(app, passes[1]!), device(app, passes[2]!)];
    const tokens = phones.map(() => newPushToken());
    for (const [i, phone] of phones.entries()) expect((await phone.register(tokens[i]!)).status).toBe(201);
    const voidedToken = newPushToken();
    expect((await device(app, voided).register(voidedToken)).status).toBe(201);
    expect((await call('POST', `/api/v1/operator/passes/${voided.serialNumber}/void`, { reason: 'test' })).status).toBe(200);
    // The void's own push, before the message's.
    await eventually(async () => (apns.pushes.some((push) => push.token === voidedToken) ? true : undefined), 10_000, 'the void pushed');
    const tag = ((await (await phones[0]!.list()).json()) as { lastUpdated: string }).lastUpdated;
    const before = await phones[0]!.latest();
    const lastModified = before.headers.get('last-modified')!;
    const pushedBefore = apns.pushes.length;

    const sent = await message(slug, 'Doors open at 7 pm.');
    expect(sent.status).toBe(202);
    expect(sent.json).toEqual({ id: expect.stringMatching(/^upd_/), passes: 3, devices: 4 });
    const id = sent.json.id as string;

    const update = await finished(id);
    expect(update).toMatchObject({ id, program: slug, kind: 'message', status: 'done', passes: 3, devicesTotal: 4, devicesPushed: 4, devicesFailed: 0 });
    expect(update.finishedAt).not.toBeNull();
    const pushed = apns.pushes.slice(pushedBefore).map((push) => push.token);
    expect(pushed.sort()).toEqual([...tokens].sort());
    expect(pushed).not.toContain(voidedToken);

    // The device learns the pass changed, and its new file carries the message as a notifying back field.
    const listed = await phones[0]!.list(tag);
    expect(((await listed.json()) as { serialNumbers: string[] }).serialNumbers).toEqual([passes[0]!.serialNumber]);
    const after = await phones[0]!.latest({ 'if-modified-since': lastModified });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    const file = inspectPkpass(Buffer.from(await after.arrayBuffer()));
    expect(file.opensslVerify().ok).toBe(true);
    expect(file.passJson.eventTicket.backFields[0]).toEqual({ key: 'programMessage', label: 'Message', value: 'Doors open at 7 pm.', changeMessage: '%@' });

    // update.finished, once, with the final counts.
    await eventually(async () => (finishedEvents(id).length > 0 ? true : undefined), 10_000, 'update.finished delivered');
    expect(finishedEvents(id)).toEqual([expect.objectContaining({ data: { id, program: slug, kind: 'message', devicesPushed: 4, devicesFailed: 0 } })]);

    // A second message replaces the first on the pass.
    const second = await message(slug, 'Doors now open at 8 pm.');
    expect(second.status).toBe(202);
    await finished(second.json.id as string);
    const latest = inspectPkpass(Buffer.from(await (await phones[0]!.latest()).arrayBuffer()));
    expect(latest.passJson.eventTicket.backFields.filter((field: { key: string }) => field.key === 'programMessage')).toEqual([
      { key: 'programMessage', label: 'Message', value: 'Doors now open at 8 pm.', changeMessage: '%@' },
    ]);

    // Listed, newest first.
    const list = (await call('GET', '/api/v1/operator/updates')).json.updates as UpdateJson[];
    expect(list[0]!.id).toBe(second.json.id);
    expect(list[1]!.id).toBe(id);
  });

  it('refuses an empty, too long, blank message, and a closed, draft or unknown program: nothing is sent', async () => {
    const { slug } = await newProgram();
    const pass = await installPass(app, new TestWallet(), slug);
    expect((await device(app, pass).register(newPushToken())).status).toBe(201);
    const closed = `closed-${backend}`;
    await app.createProgram(token, { slug: closed, name: 'Closed', status: 'live', design: DESIGN });
    const closedPass = await installPass(app, new TestWallet(), closed);
    expect((await device(app, closedPass).register(newPushToken())).status).toBe(201);
    expect((await call('PATCH', `/api/v1/operator/programs/${closed}`, { status: 'closed' })).status).toBe(200);
    const draft = `draft-${backend}`;
    await app.createProgram(token, { slug: draft, name: 'Draft', status: 'draft', design: DESIGN });
    const updatesBefore = await count('select count(*)::int as n from updates');
    const pushesBefore = apns.pushes.length;
    const versionBefore = (await (await device(app, pass).latest()).headers.get('etag')) as string;

    const expectCode = async (response: { status: number; json: Json }, status: number, code: string) => {
      expect(response.status).toBe(status);
      expect(response.json.code).toBe(code);
    };
    await expectCode(await message(slug, ''), 400, 'invalid_request');
    await expectCode(await message(slug, '   '), 400, 'invalid_request');
    await expectCode(await message(slug, 'x'.repeat(251)), 400, 'invalid_request');
    await expectCode(await message(slug, 42), 400, 'invalid_request');
    await expectCode(await message(closed, 'Hello'), 403, 'program_closed');
    await expectCode(await message(draft, 'Hello'), 404, 'program_not_found');
    await expectCode(await message('no-such-program', 'Hello'), 404, 'program_not_found');
    await expectCode(await call('GET', '/api/v1/operator/updates/upd_nothing'), 404, 'update_not_found');

    expect(await count('select count(*)::int as n from updates')).toBe(updatesBefore);
    expect(await count(`select count(*)::int as n from programs where message is not null and slug = any($1::text[])`, [[slug, closed, draft]])).toBe(0);
    expect((await device(app, pass).latest()).headers.get('etag')).toBe(versionBefore);
    // 250 characters is the most, and is taken.
    const longest = await message(slug, 'y'.repeat(250));
    expect(longest.status).toBe(202);
    await finished(longest.json.id as string);
    expect(apns.pushes.length).toBe(pushesBefore + 1);
  });

  it('removes the registrations whose token is gone in the batch, pushes again after a 500, and counts each device once', async () => {
    const { slug } = await newProgram();
    const pass = await installPass(app, new TestWallet(), slug);
    const ok = newPushToken();
    const gone = newPushToken();
    const bad = newPushToken();
    const flaky = newPushToken();
    const phones = { ok: device(app, pass), gone: device(app, pass), bad: device(app, pass), flaky: device(app, pass) };
    expect((await phones.ok.register(ok)).status).toBe(201);
    expect((await phones.gone.register(gone)).status).toBe(201);
    expect((await phones.bad.register(bad)).status).toBe(201);
    expect((await phones.flaky.register(flaky)).status).toBe(201);
    apns.answer(gone, { status: 410, reason: 'Unregistered' });
    apns.answer(bad, { status: 400, reason: 'BadDeviceToken' });
    apns.answer(flaky, [{ status: 500, reason: 'InternalServerError' }, { status: 503, reason: 'ServiceUnavailable' }, { status: 200 }]);

    const sent = await message(slug, 'Retry me');
    expect(sent.json).toMatchObject({ passes: 1, devices: 4 });
    const update = await finished(sent.json.id as string);
    expect(update).toMatchObject({ devicesTotal: 4, devicesPushed: 2, devicesFailed: 2 });
    expect(apns.pushes.filter((push) => push.token === flaky).map((push) => push.status)).toEqual([500, 503, 200]);
    const left = await app.services.store.sql.query<{ device: string }>(
      'select device_library_identifier as device from device_registrations where serial_number = $1 order by 1',
      [pass.serialNumber],
    );
    expect(left.map((row) => row.device)).toEqual([phones.ok.deviceId, phones.flaky.deviceId].sort());
    // Three batches: the first, and two retries of the flaky device; each recorded once.
    expect(await count('select count(*)::int as n from update_batches where update_id = $1 and done_at is not null', [sent.json.id])).toBe(3);

    // The batch's job run again after it was recorded (as when its instance died before marking
    // the job done): it finds its batch done, and neither pushes nor counts again.
    const pushesBefore = apns.pushes.length;
    await app.services.store.sql.query(
      `update jobs set done_at = null, run_at = now(), locked_until = null where kind = 'update.batch' and payload->>'update' = $1 and payload->>'batch' = 'r0'`,
      [sent.json.id],
    );
    await eventually(
      async () => ((await count(`select count(*)::int as n from jobs where kind = 'update.batch' and done_at is null`)) === 0 ? true : undefined),
      10_000,
      'the batch job run again',
    );
    expect(apns.pushes.length).toBe(pushesBefore);
    expect(await getUpdate(sent.json.id as string)).toEqual(update);
    await eventually(async () => (finishedEvents(sent.json.id as string).length > 0 ? true : undefined), 10_000, 'update.finished delivered');
    expect(finishedEvents(sent.json.id as string)).toHaveLength(1);
  });

  it('a change of what the passes show is an update too, and the default program takes messages', async () => {
    const { slug } = await newProgram();
    const pass = await installPass(app, new TestWallet(), slug);
    const phoneToken = newPushToken();
    expect((await device(app, pass).register(phoneToken)).status).toBe(201);
    const patched = await call('PATCH', `/api/v1/operator/programs/${slug}`, { name: 'Gala renamed' });
    expect(patched.status).toBe(200);
    const list = (await call('GET', '/api/v1/operator/updates')).json.updates as UpdateJson[];
    const change = list.find((update) => update.program === slug && update.kind === 'change');
    expect(change).toBeDefined();
    expect(await finished(change!.id)).toMatchObject({ kind: 'change', passes: 1, devicesTotal: 1, devicesPushed: 1, devicesFailed: 0 });
    // A change that does not touch the passes makes no update.
    expect((await call('PATCH', `/api/v1/operator/programs/${slug}`, { supply: 100 })).status).toBe(200);
    expect(((await call('GET', '/api/v1/operator/updates')).json.updates as UpdateJson[]).filter((u) => u.program === slug)).toHaveLength(1);

    const holder = await installPass(app, new TestWallet());
    const holderToken = newPushToken();
    expect((await device(app, holder).register(holderToken)).status).toBe(201);
    const sent = await message('default', 'Hello, holders.');
    expect(sent.status).toBe(202);
    await finished(sent.json.id as string);
    expect(apns.pushes.map((push) => push.token)).toContain(holderToken);
    const file = inspectPkpass(Buffer.from(await (await device(app, holder).latest()).arrayBuffer()));
    expect(file.passJson.generic.backFields[0]).toEqual({ key: 'programMessage', label: 'Message', value: 'Hello, holders.', changeMessage: '%@' });
  });

  it('survives a restart in the middle: the batch cut short runs again, and the counts stay exact', async () => {
    // Answers slower than a shutdown's grace (3 s): the batch under way is cut short and handed back.
    const slow = await ApnsStandIn.start({ answerDelayMs: 4000 });
    try {
      pushTo(slow);
      const { slug } = await newProgram();
      const pass = await installPass(app, new TestWallet(), slug);
      const tokens = [newPushToken(), newPushToken(), newPushToken()];
      for (const pushToken of tokens) expect((await device(app, pass).register(pushToken)).status).toBe(201);
      const sent = await message(slug, 'Survive this');
      expect(sent.status).toBe(202);
      await eventually(async () => (slow.openStreams >= 3 ? true : undefined), 10_000, 'the pushes in flight');

      await app.restart();
      token = await app.operatorToken(operator);
      pushTo(slow);
      const update = await finished(sent.json.id as string);
      expect(update).toMatchObject({ devicesTotal: 3, devicesPushed: 3, devicesFailed: 0 });
      for (const pushToken of tokens) expect(slow.deliveries.get(pushToken) ?? 0).toBeGreaterThanOrEqual(1);
      await eventually(async () => (finishedEvents(sent.json.id as string).length > 0 ? true : undefined), 10_000, 'update.finished delivered');
      expect(finishedEvents(sent.json.id as string)).toHaveLength(1);
    } finally {
      pushTo(apns);
      await slow.close();
    }
  }, 60_000);

  it('answers 401 without a credential, 403 to a scan key, 413 and 415 for a bad body: every documented answer seen', async () => {
    const { slug } = await newProgram();
    const path = `/api/v1/operator/programs/${slug}/messages`;
    const json = { 'content-type': 'application/json' };
    const scan = await call('POST', '/api/v1/operator/api-keys', { name: 'door', scope: 'scan' });
    const scanKey = scan.json.key as string;
    for (const [method, target] of [
      ['POST', path],
      ['GET', UPDATES],
      ['GET', `${UPDATES}/upd_x`],
    ] as const) {
      const body = method === 'POST' ? JSON.stringify({ text: 'x' }) : undefined;
      expect((await send(method, target, { body, headers: method === 'POST' ? json : {} })).json.code).toBe('unauthorized');
      expect((await send(method, target, { body, headers: { authorization: `Bearer ${scanKey}`, ...(method === 'POST' ? json : {}) } })).json.code).toBe(
        'forbidden',
      );
    }
    const auth = { authorization: `Bearer ${token}` };
    expect((await send('POST', path, { body: JSON.stringify({ text: 'x'.repeat(17 * 1024) }), headers: { ...auth, ...json } })).status).toBe(413);
    expect((await send('POST', path, { body: 'hello', headers: { ...auth, 'content-type': 'text/plain' } })).status).toBe(415);

    const mine = (response: string) => [MESSAGES, UPDATES, UPDATE].includes(response.split(' ')[1]!) && !/ (500|503)$/.test(response);
    expect(checker.seenResponses().filter(mine).sort()).toEqual(checker.documentedResponses().filter(mine).sort());
  });
});
