// The OpenAPI document: valid OpenAPI 3.1 by a real validator, listing every entry of the table,
// each served by a route file under app/, and true: each response the route handlers really give (every documented status of every
// operation) is documented, with a body valid against the documented schema.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { compileErrors, validate } from '@readme/openapi-parser';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHODS } from '@/lib/api/endpoint';
import { ENDPOINTS, openApiDocument } from '@/lib/api/endpoints';
import { EXAMPLE_CLAIM_REQUEST, EXAMPLE_PUBLIC_KEY } from '@/lib/api/endpoints/claims.examples';
import { publicKeySchema } from '@/lib/api/endpoints/wallet.schemas';
import { problem } from '@/lib/api/frame';
import { toProblem } from '@/lib/api/problem';
import { AppError, PROBLEM_CODES } from '@/lib/errors';
import { verifyWalletSignature } from '@/lib/signature';
import { WALLET_TYPES } from '@/lib/wallet-types';
import { device, installPass, PASSKIT } from '../living/support';
import { TestApp, TestWallet } from '../support/app';
import { TEST_ISSUER_ID, testServiceAccount } from '../support/google';
import { ResponseChecker } from '../support/openapi';
import { inspectPkpass } from '../support/pkpass';
import { ROOT } from '../support/server';

const BASE = 'https://passes.example.com';

/** An entry's path with a sample value in each {name} segment. */
const samplePath = (route: string) => route.replace(/\{\w+\}/g, 'sample');

/** The route files under app/: the paths each serves ([name]: one segment, [...name]: one or more), and the methods it exports. */
async function routeFiles(): Promise<{ file: string; pattern: RegExp; methods: string[] }[]> {
  const appDir = path.join(ROOT, 'app');
  // The API's route files hand the request to the endpoint table (lib/api/next.ts); a page's own
  // asset route (the door page's WebAssembly file) is not the API's.
  const files = (readdirSync(appDir, { recursive: true }) as string[])
    .filter((file) => /(^|\/)route\.(ts|tsx|js|mjs)$/.test(file) && /lib\/api\/next/.test(readFileSync(path.join(appDir, file), 'utf8')))
    .sort();
  return Promise.all(
    files.map(async (file) => {
      const source = path
        .dirname(file)
        .split(path.sep)
        .filter((segment) => segment !== '.' && !/^\(.*\)$/.test(segment) && !segment.startsWith('@'))
        .map((segment) => (segment.startsWith('[...') ? '/.+' : segment.startsWith('[') ? '/[^/]+' : `/${segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&')}`))
        .join('');
      const module = (await import(/* @vite-ignore */ path.join(appDir, file))) as Record<string, unknown>;
      const methods = Object.keys(module).filter((name) => /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/.test(name));
      return { file: `app/${file}`, pattern: new RegExp(`^${source}$`), methods };
    }),
  );
}

describe('the OpenAPI document', () => {
  const document = openApiDocument(BASE);

  it('is valid OpenAPI 3.1 to @readme/openapi-parser, without warnings', async () => {
    const result = await validate(structuredClone(document) as never);
    expect(result.valid, compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.servers).toEqual([{ url: BASE }]);
  });

  it('documents every entry of the table, each served by one route file under app/ for next dev and next start', async () => {
    const documented = Object.entries(document.paths).flatMap(([route, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${route}`));
    expect(documented.sort()).toEqual(ENDPOINTS.map((entry) => `${entry.method} ${entry.path}`).sort());
    const routes = await routeFiles();
    for (const entry of ENDPOINTS) {
      const serving = routes.filter(({ pattern }) => pattern.test(samplePath(entry.path))).map(({ file }) => file);
      expect(serving, `${entry.method} ${entry.path} is served by one route file`).toHaveLength(1);
    }
    for (const { file, pattern, methods } of routes) {
      // Every method of the table, and OPTIONS (the document promises CORS preflights on every path).
      expect(methods.sort(), `${file} exports every method`).toEqual([...METHODS, 'OPTIONS'].sort());
      expect(
        ENDPOINTS.some((entry) => pattern.test(samplePath(entry.path))),
        `${file} serves an entry of the table`,
      ).toBe(true);
    }
  });

  it('names the 13 wallet types and every problem code, with an anchor for each in the reference', () => {
    const schemas = document.components.schemas as Record<string, { enum?: string[]; properties?: Record<string, { enum?: string[] }> }>;
    expect(schemas.WalletType!.enum).toEqual([...WALLET_TYPES]);
    expect(schemas.WalletType!.enum).toHaveLength(13);
    expect(schemas.Problem!.properties!.code!.enum).toEqual(PROBLEM_CODES);
    for (const code of PROBLEM_CODES) {
      expect(document.info.description).toContain(`id="${toProblem(new AppError(code, '')).type.split('#')[1]}"`);
    }
  });

  it('has examples that are valid against their own schemas, and a signature that verifies', () => {
    const checker = new ResponseChecker(document);
    let count = 0;
    for (const [route, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item as Record<string, any>)) {
        const body = operation.requestBody?.content?.['application/json'];
        if (body) {
          checker.expectValid(
            `openapi.json#/paths/${route.replaceAll('/', '~1')}/${method}/requestBody/content/application~1json/schema`,
            body.example,
            `${method} ${route} request example`,
          );
          count++;
        }
        for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
          for (const [mediaType, content] of Object.entries((response.content ?? {}) as Record<string, any>)) {
            const examples = [content.example, ...Object.values(content.examples ?? {}).map((e: any) => e.value)].filter((e) => e !== undefined);
            for (const example of examples) {
              checker.expectValid(checker.pointer(route, method, status, mediaType), example, `${method} ${route} ${status} example`);
              count++;
            }
          }
        }
      }
    }
    expect(count).toBeGreaterThan(20);
    expect(publicKeySchema.safeParse(EXAMPLE_PUBLIC_KEY).success).toBe(true);
    const { message, signature, publicKey } = EXAMPLE_CLAIM_REQUEST;
    expect(verifyWalletSignature(message, bs58.decode(signature), bs58.decode(publicKey), publicKey)).toBe('raw');
  });

  it('fails to build when one schema id would mean two shapes', async () => {
    const { z } = await import('zod');
    const { buildOpenApiDocument } = await import('@/lib/api/openapi');
    const shared = z.object({ kind: z.string().default('a') }).meta({ id: 'TwoShapes' });
    const endpoint = ENDPOINTS[0]!;
    expect(() =>
      buildOpenApiDocument({
        version: '0',
        endpoints: [
          {
            ...endpoint,
            query: undefined,
            invalidExample: undefined,
            body: { schema: shared, example: {} },
            responses: { 200: { description: 'x', json: shared } },
          },
        ],
      }),
    ).toThrow(/TwoShapes/);
  });
});

describe('the document matches what the route handlers answer', () => {
  const document = openApiDocument(BASE);
  const checker = new ResponseChecker(document);
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.open('pglite', { PUBLIC_BASE_URL: BASE });
  });
  afterAll(() => app.close());

  const claimBody = async (wallet: TestWallet) => {
    const { message } = await app.init(wallet.publicKey);
    return { message, signature: wallet.sign(message), publicKey: wallet.publicKey };
  };
  const CLAIM = '/api/v1/claim/wallet-pass';
  const INIT = '/api/v1/claim/init';

  it('GET /api/v1/openapi.json serves this document', async () => {
    const response = await app.fetch('/api/v1/openapi.json');
    expect(await checker.check('GET', '/api/v1/openapi.json', response.clone())).toEqual(JSON.parse(JSON.stringify(document)));
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('GET /health', async () => {
    expect(await checker.check('GET', '/health', await app.fetch('/health'))).toEqual({ status: 'healthy' });
  });

  it('GET /api/v1/claim/init: 200, and 400 exactly as the documented example', async () => {
    await checker.check('GET', INIT, await app.fetch(`${INIT}?publicKey=${new TestWallet().publicKey}`));
    const example = (checker.operation('GET', INIT).responses['400']!.content!['application/problem+json']!.examples as Record<string, { value: unknown }>)
      .invalid_request!.value;
    const invalid = ENDPOINTS.find((e) => e.path === INIT)!.invalidExample as Record<string, string>;
    expect(await checker.check('GET', INIT, await app.fetch(`${INIT}?${new URLSearchParams(invalid)}`))).toEqual(example);
  });

  it('POST /api/v1/claim/wallet-pass: 201, 200, and 400 exactly as the documented example', async () => {
    const wallet = new TestWallet();
    await checker.check('POST', CLAIM, await app.postClaim({ ...(await claimBody(wallet)), walletType: 'Phantom' }));
    await checker.check('POST', CLAIM, await app.postClaim(await claimBody(wallet)));
    const example = (checker.operation('POST', CLAIM).responses['400']!.content!['application/problem+json']!.examples as Record<string, { value: unknown }>)
      .invalid_request!.value;
    const invalid = ENDPOINTS.find((e) => e.path === CLAIM)!.invalidExample;
    expect(await checker.check('POST', CLAIM, await app.postClaim(invalid))).toEqual(example);
  });

  it('POST /api/v1/claim/wallet-pass: 401 (not issued, bad signature), 409, 413, 415', async () => {
    const wallet = new TestWallet();
    const body = await claimBody(wallet);
    const codes = async (response: Response) => ((await checker.check('POST', CLAIM, response)) as { code: string }).code;
    expect(await codes(await app.postClaim({ ...body, message: `${body.message}!` }))).toBe('message_not_issued');
    expect(await codes(await app.postClaim({ ...body, signature: new TestWallet().sign(body.message) }))).toBe('signature_invalid');
    expect((await app.postClaim(body)).status).toBe(201);
    expect(await codes(await app.postClaim(body))).toBe('message_already_used');
    expect(await codes(await app.postClaim({ ...body, padding: 'x'.repeat(17 * 1024) }))).toBe('payload_too_large');
    expect(await codes(await app.fetch(CLAIM, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(body) }))).toBe(
      'unsupported_media_type',
    );
  });

  it('GET /download: 200 with the documented headers, 304, 404', async () => {
    const { downloadUrl } = (await (await app.postClaim(await claimBody(new TestWallet()))).json()) as { downloadUrl: string };
    const path = downloadUrl.slice(BASE.length);
    const response = await app.fetch(path);
    for (const header of Object.keys(checker.operation('GET', '/download').responses['200']!.headers!)) {
      expect(response.headers.get(header), header).toBeTruthy();
    }
    const etag = response.headers.get('etag')!;
    expect(await checker.check('GET', '/download', response)).toBeInstanceOf(Uint8Array);
    await checker.check('GET', '/download', await app.fetch(path, { headers: { 'if-none-match': etag } }));
    await checker.check('GET', '/download', await app.fetch('/download?pass=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'));
  });

  it('401 message_expired, once the message has expired', async () => {
    const wallet = new TestWallet();
    const issued = await app.init(wallet.publicKey);
    app.clock.advance(Date.parse(issued.expirationTime) - app.clock.now() + 50);
    try {
      const claimed = await app.postClaim({ message: issued.message, signature: wallet.sign(issued.message), publicKey: wallet.publicKey });
      const problem = await checker.check('POST', CLAIM, claimed);
      expect((problem as { code: string }).code).toBe('message_expired');
    } finally {
      app.clock.reset();
    }
  });

  it('429 with Retry-After on every rate-limited endpoint', async () => {
    await app.restart({ RATE_LIMIT_PER_MINUTE: '1' });
    const wallet = new TestWallet();
    await app.fetch(`${INIT}?publicKey=${wallet.publicKey}`, { ip: '198.51.100.1' });
    const init = await app.fetch(`${INIT}?publicKey=${wallet.publicKey}`, { ip: '198.51.100.1' });
    expect(init.headers.get('retry-after')).toMatch(/^\d+$/);
    await checker.check('GET', INIT, init);
    const claim = await app.postClaim({ message: 'x', signature: wallet.sign('x'), publicKey: wallet.publicKey }, { ip: '198.51.100.1' });
    expect(claim.headers.get('retry-after')).toMatch(/^\d+$/);
    await checker.check('POST', CLAIM, claim);
    // The Google link counts too; it is limited before the pass is looked up.
    const link = await app.fetch('/api/v1/passes/google?pass=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', { ip: '198.51.100.1' });
    expect(link.status).toBe(429);
    expect(link.headers.get('retry-after')).toMatch(/^\d+$/);
    await checker.check('GET', '/api/v1/passes/google', link);
    // PassKit's register, unregister and log count too, before the pass's token is looked at.
    const registration = `${PASSKIT}/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}/{serialNumber}`;
    const registrationPath = `${PASSKIT}/devices/d1/registrations/pass.example/00000000-0000-4000-8000-000000000000`;
    const json = { 'content-type': 'application/json' };
    const limited = [
      ['POST', registration, await app.fetch(registrationPath, { ip: '198.51.100.1', method: 'POST', headers: json, body: '{"pushToken":"ab"}' })],
      ['DELETE', registration, await app.fetch(registrationPath, { ip: '198.51.100.1', method: 'DELETE' })],
      ['POST', `${PASSKIT}/log`, await app.fetch(`${PASSKIT}/log`, { ip: '198.51.100.1', method: 'POST', headers: json, body: '{"logs":[]}' })],
      ['GET', '/api/v1/programs/{slug}', await app.fetch('/api/v1/programs/default', { ip: '198.51.100.1' })],
    ] as const;
    // The scanner check counts too, JSON and page, before the serial is looked up.
    const check = await app.fetch('/api/v1/passes/verify?serial=00000000-0000-4000-8000-000000000000', { ip: '198.51.100.1' });
    expect(check.status).toBe(429);
    expect(check.headers.get('retry-after')).toMatch(/^\d+$/);
    await checker.check('GET', '/api/v1/passes/verify', check);
    const page = await app.fetch('/verify?serial=00000000-0000-4000-8000-000000000000', { ip: '198.51.100.1' });
    expect(page.status).toBe(429);
    expect(page.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    await checker.check('GET', '/verify', page);
    for (const [method, path, response] of limited) {
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
      await checker.check(method, path, response);
    }
    await app.restart({ RATE_LIMIT_PER_MINUTE: '0' });
  });

  it('403 not_eligible from init and the claim under a CLAIM_POLICY (the claim checked again after the signature)', async () => {
    const wallet = new TestWallet();
    const body = await claimBody(wallet); // issued before the policy
    await app.restart({ CLAIM_POLICY: JSON.stringify({ allow: [new TestWallet().publicKey] }) });
    expect(((await checker.check('GET', INIT, await app.fetch(`${INIT}?publicKey=${wallet.publicKey}`))) as { code: string }).code).toBe('not_eligible');
    expect(((await checker.check('POST', CLAIM, await app.postClaim(body))) as { code: string }).code).toBe('not_eligible');
    await app.restart({ CLAIM_POLICY: '' });
  });

  it('503 from every endpoint that reads the database, once it stops answering', async () => {
    const wallet = new TestWallet();
    const body = await claimBody(wallet);
    const { downloadUrl } = (await (await app.postClaim(await claimBody(new TestWallet()))).json()) as { downloadUrl: string };
    await app.services.store.close();
    expect(await checker.check('GET', '/health', await app.fetch('/health'))).toEqual({ status: 'unhealthy' });
    for (const [method, route, response] of [
      ['GET', INIT, await app.fetch(`${INIT}?publicKey=${wallet.publicKey}`)],
      ['POST', CLAIM, await app.postClaim(body)],
      ['GET', '/download', await app.fetch(downloadUrl.slice(BASE.length))],
      ['GET', '/api/v1/passes/verify', await app.fetch('/api/v1/passes/verify?serial=00000000-0000-4000-8000-000000000000')],
    ] as const) {
      expect(((await checker.check(method, route, response)) as { code: string }).code).toBe('service_unavailable');
    }
    const page = await app.fetch('/verify?serial=00000000-0000-4000-8000-000000000000');
    expect(page.status).toBe(503);
    await checker.check('GET', '/verify', page);
    await app.restart();
  });

  it('GET /api/v1/passes/verify: 200, 400 exactly as the documented example, 404', async () => {
    const { downloadUrl } = (await (await app.postClaim(await claimBody(new TestWallet()))).json()) as { downloadUrl: string };
    const pass = inspectPkpass(new Uint8Array(await (await app.fetch(downloadUrl.slice(BASE.length))).arrayBuffer()));
    const serial = pass.passJson.serialNumber as string;
    expect(await checker.check('GET', '/api/v1/passes/verify', await app.fetch(`/api/v1/passes/verify?serial=${serial}`))).toMatchObject({
      genuine: true,
      serialNumber: serial,
    });
    const invalid = await checker.check('GET', '/api/v1/passes/verify', await app.fetch('/api/v1/passes/verify?serial=not-a-serial'));
    expect(invalid).toEqual(
      checker.operation('GET', '/api/v1/passes/verify').responses['400']!.content!['application/problem+json']!.examples!.invalid_request!.value,
    );
    await checker.check('GET', '/api/v1/passes/verify', await app.fetch('/api/v1/passes/verify?serial=00000000-0000-4000-8000-000000000000'));
    // The page shows the same: 200 for the pass, 404 otherwise.
    await checker.check('GET', '/verify', await app.fetch(`/verify?serial=${serial}`));
    await checker.check('GET', '/verify', await app.fetch('/verify?serial=00000000-0000-4000-8000-000000000000'));
  });

  it('GET /api/v1/programs/{slug}: 200 for a live program, 404 for an unknown one', async () => {
    expect(await checker.check('GET', '/api/v1/programs/{slug}', await app.fetch('/api/v1/programs/default'))).toMatchObject({ slug: 'default' });
    const unknown = await checker.check('GET', '/api/v1/programs/{slug}', await app.fetch('/api/v1/programs/no-such-program'));
    expect((unknown as { code: string }).code).toBe('program_not_found');
  });

  it('GET /api/v1/passes/google: 404 without a Google issuer, 200 with one, 404 for an unknown pass', async () => {
    const { downloadUrl } = (await (await app.postClaim(await claimBody(new TestWallet()))).json()) as { downloadUrl: string };
    const pass = new URL(downloadUrl).searchParams.get('pass')!;
    const unconfigured = await checker.check('GET', '/api/v1/passes/google', await app.fetch(`/api/v1/passes/google?pass=${pass}`));
    expect((unconfigured as { code: string }).code).toBe('google_wallet_not_configured');
    const account = testServiceAccount();
    await app.restart({ GOOGLE_WALLET_ISSUER_ID: TEST_ISSUER_ID, GOOGLE_SERVICE_ACCOUNT: account.json });
    const link = await checker.check('GET', '/api/v1/passes/google', await app.fetch(`/api/v1/passes/google?pass=${pass}`));
    expect((link as { saveUrl: string }).saveUrl).toMatch(/^https:\/\/pay\.google\.com\/gp\/v\/save\//);
    const unknown = await checker.check(
      'GET',
      '/api/v1/passes/google',
      await app.fetch('/api/v1/passes/google?pass=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'),
    );
    expect((unknown as { code: string }).code).toBe('pass_not_found');
    await app.restart({ GOOGLE_WALLET_ISSUER_ID: '', GOOGLE_SERVICE_ACCOUNT: '' });
  });

  it('the PassKit web service: every answer of register, unregister, list, latest pass and log', async () => {
    const REGISTRATION = `${PASSKIT}/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}/{serialNumber}`;
    const LIST = `${PASSKIT}/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}`;
    const LATEST = `${PASSKIT}/passes/{passTypeIdentifier}/{serialNumber}`;
    const LOG = `${PASSKIT}/log`;
    const installed = await installPass(app);
    const phone = device(app, installed);
    const token = '0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9';
    await checker.check('POST', REGISTRATION, await phone.register(token));
    await checker.check('POST', REGISTRATION, await phone.register(token));
    await checker.check('POST', REGISTRATION, await phone.register(token, 'A'.repeat(43)));
    const path = `${PASSKIT}/devices/${phone.deviceId}/registrations/${installed.passTypeIdentifier}/${installed.serialNumber}`;
    const post = (body: string, contentType = 'application/json') =>
      app.fetch(path, { method: 'POST', headers: { 'content-type': contentType, authorization: `ApplePass ${installed.authenticationToken}` }, body });
    await checker.check('POST', REGISTRATION, await post('{"pushToken": 1}'));
    await checker.check('POST', REGISTRATION, await post(JSON.stringify({ pushToken: token, padding: 'x'.repeat(17 * 1024) })));
    await checker.check('POST', REGISTRATION, await post(JSON.stringify({ pushToken: token }), 'text/plain'));

    const listed = (await checker.check('GET', LIST, await phone.list())) as { lastUpdated: string };
    await checker.check('GET', LIST, await phone.list(listed.lastUpdated));
    await checker.check('GET', LIST, await app.fetch(`${PASSKIT}/devices/${'x'.repeat(200)}/registrations/${installed.passTypeIdentifier}`));

    const file = await phone.latest();
    expect(await checker.check('GET', LATEST, file.clone())).toBeInstanceOf(Uint8Array);
    for (const header of Object.keys(checker.operation('GET', LATEST).responses['200']!.headers!)) expect(file.headers.get(header), header).toBeTruthy();
    await checker.check('GET', LATEST, await phone.latest({ 'if-modified-since': file.headers.get('last-modified')! }));
    await checker.check('GET', LATEST, await app.fetch(`${PASSKIT}/passes/${installed.passTypeIdentifier}/${installed.serialNumber}`));
    await checker.check('GET', LATEST, await app.fetch(`${PASSKIT}/passes/${installed.passTypeIdentifier}/${'x'.repeat(100)}`));

    await checker.check('DELETE', REGISTRATION, await phone.unregister());
    await checker.check('DELETE', REGISTRATION, await phone.unregister('A'.repeat(43)));
    await checker.check(
      'DELETE',
      REGISTRATION,
      await app.fetch(`${PASSKIT}/devices/bad%20id/registrations/${installed.passTypeIdentifier}/${installed.serialNumber}`, { method: 'DELETE' }),
    );

    await checker.check('POST', LOG, await phone.log(['a problem']));
    const log = (body: string, contentType = 'application/json') => app.fetch(LOG, { method: 'POST', headers: { 'content-type': contentType }, body });
    await checker.check('POST', LOG, await log('{"logs": "no"}'));
    await checker.check('POST', LOG, await log(JSON.stringify({ logs: ['x'.repeat(9000), 'y'.repeat(9000)] })));
    await checker.check('POST', LOG, await log('{"logs": []}', 'text/plain'));
  });

  it('a program that is not there, or no longer live: 404 program_not_found at init and at claim', async () => {
    const INIT = '/api/v1/claim/init';
    const CLAIM = '/api/v1/claim/wallet-pass';
    const wallet = new TestWallet();
    await checker.check('GET', INIT, await app.fetch(`${INIT}?publicKey=${wallet.publicKey}&program=no-such-program`));
    // A message issued while the program was live, claimed once it is a draft again.
    await app.services.store.sql.query(`insert into programs (slug, name, status, design) values ('doc-check', 'Doc check', 'live', '{}'::jsonb)`);
    const { message } = await app.init(wallet.publicKey, undefined, 'doc-check');
    await app.services.store.sql.query(`update programs set status = 'draft' where slug = 'doc-check'`);
    app.services.programs.forget('doc-check');
    const claim = await app.postClaim({ message, signature: wallet.sign(message), publicKey: wallet.publicKey, program: 'doc-check' });
    expect(((await checker.check('POST', CLAIM, claim)) as { code: string }).code).toBe('program_not_found');
  });

  it('the answers no handler gives on purpose match too: a bug (500), and an instance shutting down (503)', async () => {
    // The bodies apiRoute and server.ts build for these, by the same functions.
    const bug = await problem(new AppError('internal_error', 'An unexpected error occurred.'), '2b7f0c1e-0000-4000-8000-000000000000').json();
    const shuttingDown = toProblem(new AppError('service_unavailable', 'This instance is shutting down; retry.'));
    for (const endpoint of ENDPOINTS.filter((e) => !e.page)) {
      checker.checkBody(endpoint.method, endpoint.path, 500, 'application/problem+json', bug);
      checker.checkBody(endpoint.method, endpoint.path, 503, 'application/problem+json', shuttingDown);
    }
  });

  it('every documented response was seen above', () => {
    // The operator API's responses are held to the document the same way in test/contract/operators.test.ts,
    // and a program's public image in test/contract/program-images.test.ts.
    const here = (response: string) => !/^\/api\/v1\/(operator|programs)\//.test(response.split(' ')[1]!);
    expect(checker.seenResponses().filter(here).sort()).toEqual(checker.documentedResponses().filter(here).sort());
  });
});
