// The typed client against the service's real route handlers: typed results, and a typed
// ClaimApiError for each problem the service answers. The command-line claim turns each of those
// errors into one line and its own exit code.
import { createServer, type Server, type ServerResponse } from 'node:http';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '@/lib/api/endpoints';
import { problem } from '@/lib/api/frame';
import { describeFailure, LOCAL_EXIT_CODES, PROBLEM_EXIT_CODES } from '@/lib/cli/claim';
import { ClaimApiError, type ClaimClient, createClaimClient } from '@/lib/client';
import { AppError, PROBLEMS } from '@/lib/errors';
import { createProgram } from '@/lib/programs/programs';
import { programCreateSchema } from '@/lib/programs/schema';
import { TestApp, TestWallet } from '../support/app';
import { inspectPkpass } from '../support/pkpass';
import { freePort } from '../support/server';

const BASE = 'https://passes.example.com';

describe('the typed client, through the route handlers', () => {
  let app: TestApp;
  let client: ClaimClient;
  beforeAll(async () => {
    app = await TestApp.open('pglite', { PUBLIC_BASE_URL: BASE });
    client = createClaimClient({ baseUrl: `${BASE}/`, fetch: (input, init) => app.fetch(String(input), init as never) });
  });
  afterAll(() => app.close());

  /** The error a call rejects with, which must be a ClaimApiError. */
  const failureOf = async (call: Promise<unknown>): Promise<ClaimApiError> => {
    const error = await call.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ClaimApiError);
    return error as ClaimApiError;
  };

  const seenCodes = new Set<string>();
  /** A problem error carries the code, status and body the service sent; the CLI gives it one line and its own exit code. */
  const expectProblem = (error: ClaimApiError, code: keyof typeof PROBLEMS) => {
    seenCodes.add(error.code);
    expect(error.code).toBe(code);
    expect(error.status).toBe(PROBLEMS[code].status);
    expect(error.problem).toMatchObject({ code, status: PROBLEMS[code].status, title: PROBLEMS[code].title, type: `/docs#problem-${code}` });
    expect(error.detail).toBe(error.problem!.detail);
    const failure = describeFailure(error);
    expect(failure.exitCode).toBe(PROBLEM_EXIT_CODES[code]);
    expect(failure.line).toBe(`claim: ${code} (${PROBLEMS[code].status}): ${error.detail}`);
    expect(failure.line).not.toContain('\n');
  };

  it('init, claim, download: typed results, a new pass (created) then the same one', async () => {
    const wallet = new TestWallet();
    const issued = await client.init(wallet.publicKey);
    expect(issued).toMatchObject({ address: wallet.publicKey, domain: 'passes.example.com', version: '1', uri: BASE });
    const first = await client.claim({ message: issued.message, signature: wallet.sign(issued.message), publicKey: wallet.publicKey, walletType: 'Solflare' });
    expect(first).toEqual({ downloadUrl: expect.stringMatching(/^https:\/\/passes\.example\.com\/download\?pass=[\w-]{43}$/), created: true });

    const again = await client.init(wallet.publicKey);
    const second = await client.claim({ message: again.message, signature: wallet.sign(again.message), publicKey: wallet.publicKey });
    expect(second).toEqual({ downloadUrl: first.downloadUrl, created: false });

    const file = await client.download(first.downloadUrl);
    expect(file.filename).toMatch(/^[\w-]+\.pkpass$/);
    expect(file.etag).toMatch(/^".+"$/);
    const pass = inspectPkpass(file.bytes);
    expect(pass.opensslVerify().ok).toBe(true);
    expect(JSON.stringify(pass.passJson)).toContain(wallet.publicKey);
  });

  it('rejects with a typed problem for each code a client can meet', async () => {
    const wallet = new TestWallet();
    const issued = await client.init(wallet.publicKey);
    const signed = { message: issued.message, signature: wallet.sign(issued.message), publicKey: wallet.publicKey };

    const invalid = await failureOf(client.init('not-a-key'));
    expectProblem(invalid, 'invalid_request');
    expect(invalid.problem!.fields).toEqual([{ field: 'publicKey', message: expect.any(String) }]);
    expectProblem(await failureOf(client.claim({ ...signed, walletType: 'Backpack' as never })), 'invalid_request');
    expectProblem(await failureOf(client.claim({ ...signed, message: `${issued.message} ` })), 'message_not_issued');
    expectProblem(await failureOf(client.claim({ ...signed, signature: new TestWallet().sign(issued.message) })), 'signature_invalid');
    expectProblem(await failureOf(client.claim({ ...signed, message: 'm'.repeat(20_000) })), 'payload_too_large');
    await client.claim(signed);
    expectProblem(await failureOf(client.claim(signed)), 'message_already_used');
    expectProblem(await failureOf(client.download(`${BASE}/download?pass=${'A'.repeat(43)}`)), 'pass_not_found');
  });

  it('rejects with not_found and method_not_allowed when pointed at a path or method the API does not answer', async () => {
    const misrouted = (rewrite: (url: string, init: RequestInit) => [string, RequestInit]) =>
      createClaimClient({ baseUrl: BASE, fetch: (input, init) => app.fetch(...rewrite(String(input), (init ?? {}) as RequestInit)) });
    const wallet = new TestWallet();
    const unknownPath = misrouted((url, init) => [url.replace('/claim/init', '/claim/start'), init]);
    expectProblem(await failureOf(unknownPath.init(wallet.publicKey)), 'not_found');
    const wrongMethod = misrouted((url, init) => [url, { ...init, method: 'PUT' }]);
    const refused = await failureOf(wrongMethod.init(wallet.publicKey));
    expectProblem(refused, 'method_not_allowed');
  });

  it('rejects with message_expired past the expiration time', async () => {
    const wallet = new TestWallet();
    const issued = await client.init(wallet.publicKey);
    app.clock.advance(Date.parse(issued.expirationTime) - app.clock.now() + 50);
    try {
      const claimed = client.claim({ message: issued.message, signature: wallet.sign(issued.message), publicKey: wallet.publicKey });
      expectProblem(await failureOf(claimed), 'message_expired');
    } finally {
      app.clock.reset();
    }
  });

  it('rejects with rate_limited and the seconds to wait', async () => {
    await app.restart({ RATE_LIMIT_PER_MINUTE: '1' });
    const wallet = new TestWallet();
    await client.init(wallet.publicKey);
    const limited = await failureOf(client.init(wallet.publicKey));
    expectProblem(limited, 'rate_limited');
    expect(limited.retryAfterSeconds).toBeGreaterThan(0);
    expect(limited.retryAfterSeconds).toBeLessThanOrEqual(60);
    await app.restart({ RATE_LIMIT_PER_MINUTE: '0' });
  });

  it('rejects with unsupported_media_type when something on the way drops the JSON content type', async () => {
    const stripped = createClaimClient({
      baseUrl: BASE,
      fetch: (input, init) => app.fetch(String(input), { ...(init as RequestInit), headers: { 'content-type': 'text/plain' } }),
    });
    const wallet = new TestWallet();
    expectProblem(await failureOf(stripped.claim({ message: 'm', signature: wallet.sign('m'), publicKey: wallet.publicKey })), 'unsupported_media_type');
  });

  it('rejects with internal_error, and the request id, for the answer the route frame gives a bug', async () => {
    const requestId = '2b7f0c1e-0000-4000-8000-000000000000';
    const buggy = createClaimClient({
      baseUrl: BASE,
      fetch: async () => problem(new AppError('internal_error', `An unexpected error occurred. Quote request id ${requestId} when reporting it.`), requestId),
    });
    const bug = await failureOf(buggy.init(new TestWallet().publicKey));
    expectProblem(bug, 'internal_error');
    expect(describeFailure(bug).line).toContain(requestId);
  });

  it('rejects with service_unavailable, and the request id, when the database stops answering', async () => {
    const wallet = new TestWallet();
    await app.services.store.close();
    const unavailable = await failureOf(client.init(wallet.publicKey));
    expectProblem(unavailable, 'service_unavailable');
    expect(unavailable.problem!.requestId).toMatch(/^[\w-]{36}$/);
    await app.restart();
  });

  it('resolves googleSaveUrl to null when the service has no Google Wallet issuer (google_wallet_not_configured)', async () => {
    const wallet = new TestWallet();
    const issued = await client.init(wallet.publicKey);
    const { downloadUrl } = await client.claim({ message: issued.message, signature: wallet.sign(issued.message), publicKey: wallet.publicKey });
    const direct = await app.fetch(`/api/v1/passes/google?pass=${new URL(downloadUrl).searchParams.get('pass')}`);
    expect(direct.status).toBe(404);
    const problem = await direct.json();
    expect(problem.code).toBe('google_wallet_not_configured');
    seenCodes.add(problem.code);
    await expect(client.googleSaveUrl(downloadUrl)).resolves.toBeNull();
  });

  it('rejects with not_eligible when CLAIM_POLICY leaves the wallet out, and the CLI says why', async () => {
    const member = new TestWallet();
    const gated = await TestApp.open('pglite', { PUBLIC_BASE_URL: BASE, CLAIM_POLICY: JSON.stringify({ allow: [member.publicKey] }) });
    try {
      const gatedClient = createClaimClient({ baseUrl: BASE, fetch: (input, init) => gated.fetch(String(input), init as never) });
      const refused = await failureOf(gatedClient.init(new TestWallet().publicKey));
      expectProblem(refused, 'not_eligible');
      expect(describeFailure(refused).line).toContain(refused.detail);
      await expect(gatedClient.init(member.publicKey)).resolves.toMatchObject({ address: member.publicKey });
    } finally {
      await gated.close();
    }
  });

  it('names a program at init and claim; rejects with program_not_found, program_closed and sold_out, each with its exit code', async () => {
    const setUp = (program: Record<string, unknown>) => createProgram(app.services, programCreateSchema.parse(program));
    await setUp({ slug: 'client-one', name: 'One of one', status: 'live', supply: 1 });
    await setUp({ slug: 'client-shut', name: 'Shut', status: 'closed' });
    await setUp({ slug: 'client-later', name: 'Later', status: 'live', opensAt: '2099-01-01T00:00:00.000Z' });

    const wallet = new TestWallet();
    const issued = await client.init(wallet.publicKey, { program: 'client-one' });
    expect(issued.message).toContain(`\nResources:\n- ${BASE}/p/client-one`);
    const signed = { message: issued.message, signature: wallet.sign(issued.message), publicKey: wallet.publicKey };
    // The message is the program's: it claims only there.
    expectProblem(await failureOf(client.claim(signed)), 'message_not_issued');
    const claimed = await client.claim({ ...signed, program: 'client-one' });
    expect(claimed).toEqual({ downloadUrl: expect.stringMatching(/^https:\/\/passes\.example\.com\/download\?pass=[\w-]{43}$/), created: true });
    // Without a program, init is the default program's, as before: no Resources line.
    expect((await client.init(wallet.publicKey)).message).not.toContain('Resources');

    // Its one pass is issued: another wallet is refused (at init, or, while this instance still
    // has the program as it read it a moment ago, by the claim's statement).
    const late = new TestWallet();
    const attempt = client
      .init(late.publicKey, { program: 'client-one' })
      .then(({ message }) => client.claim({ message, signature: late.sign(message), publicKey: late.publicKey, program: 'client-one' }));
    expectProblem(await failureOf(attempt), 'sold_out');
    expectProblem(await failureOf(client.init(wallet.publicKey, { program: 'client-shut' })), 'program_closed');
    const later = await failureOf(client.init(wallet.publicKey, { program: 'client-later' }));
    expectProblem(later, 'program_closed');
    expect(later.detail).toContain('2099-01-01T00:00:00.000Z');
    expectProblem(await failureOf(client.init(wallet.publicKey, { program: 'no-such-program' })), 'program_not_found');
    const malformed = await failureOf(client.init(wallet.publicKey, { program: 'Not A Slug' }));
    expectProblem(malformed, 'invalid_request');
    expect(malformed.problem!.fields).toEqual([{ field: 'program', message: expect.any(String) }]);
  });

  it('met every problem code the claim API answers', () => {
    // The operator and PassKit endpoints have clients of their own (the console, Wallet); their
    // codes are met in operators.test.ts and test/living/.
    // So have a program's public images (its claim page).
    const ownClient = (path: string) => path.startsWith('/api/v1/operator/') || path.startsWith('/passkit/') || path.startsWith('/api/v1/programs/');
    const othersOnly = new Set(ENDPOINTS.filter((e) => ownClient(e.path)).flatMap((e) => e.problems));
    for (const e of ENDPOINTS.filter((e) => !ownClient(e.path))) {
      for (const code of e.problems) othersOnly.delete(code);
    }
    const expected = Object.keys(PROBLEMS).filter((code) => !othersOnly.has(code as never));
    expect([...seenCodes].sort()).toEqual(expected.sort());
  });
});

describe('the typed client without the service', () => {
  it('rejects with network_error when nothing listens, and the CLI says so in one line', async () => {
    const client = createClaimClient({ baseUrl: `http://127.0.0.1:${await freePort()}` });
    const error = (await client.init(new TestWallet().publicKey).then(
      () => null,
      (e: unknown) => e,
    )) as ClaimApiError;
    expect(error).toBeInstanceOf(ClaimApiError);
    expect(error).toMatchObject({ code: 'network_error', status: 0 });
    expect(error.detail).toContain('connection refused');
    expect(describeFailure(error)).toMatchObject({ exitCode: LOCAL_EXIT_CODES.network_error.exitCode, line: `claim: network_error: ${error.detail}` });
  });

  describe('against a server that is not this API', () => {
    // A real HTTP server standing in for what can sit in front of the service: a web page, another
    // JSON API, a gateway that failed, a peer that accepts and never answers.
    let answer: (response: ServerResponse) => void = () => {};
    let server: Server;
    let url = '';
    const key = bs58.encode(new Uint8Array(32).fill(9));
    beforeAll(async () => {
      server = createServer((_request, response) => answer(response));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('rejects with unexpected_response for a web page or another JSON shape', async () => {
      const client = createClaimClient({ baseUrl: url });
      answer = (response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<html>hello</html>');
      await expect(client.init(key)).rejects.toMatchObject({ code: 'unexpected_response', status: 200 });
      answer = (response) => response.writeHead(201, { 'content-type': 'application/json' }).end('{"hello":"world"}');
      const error = (await client.claim({ message: 'm', signature: 's', publicKey: key }).then(
        () => null,
        (e: unknown) => e,
      )) as ClaimApiError;
      expect(error).toMatchObject({ code: 'unexpected_response', detail: expect.stringContaining('downloadUrl') });
      expect(describeFailure(error).exitCode).toBe(LOCAL_EXIT_CODES.unexpected.exitCode);
    });

    it('rejects with service_unavailable for a failed gateway', async () => {
      answer = (response) => response.writeHead(502, { 'content-type': 'text/plain' }).end('Bad gateway');
      await expect(createClaimClient({ baseUrl: url }).init(key)).rejects.toMatchObject({ code: 'service_unavailable', status: 502 });
    });

    it('gives up after its timeout with network_error', async () => {
      answer = () => {};
      await expect(createClaimClient({ baseUrl: url, timeoutMs: 300 }).init(key)).rejects.toMatchObject({
        code: 'network_error',
        detail: expect.stringContaining('no answer within'),
      });
    });
  });

  it('every exit code of the command line is distinct', () => {
    const codes = [...Object.values(LOCAL_EXIT_CODES).map((c) => c.exitCode), ...Object.values(PROBLEM_EXIT_CODES), 0];
    expect(new Set(codes).size).toBe(codes.length);
    expect(Object.keys(PROBLEM_EXIT_CODES).sort()).toEqual(Object.keys(PROBLEMS).sort());
  });
});
