// The service this replaces had clients generated from its OpenAPI. They call init reading
// domain, nonce, issuedAt and message, and claim with message, signature, publicKey and
// walletType reading downloadUrl. Those names and shapes must keep working, in the answers and in
// the document new clients are generated from.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '@/lib/api/endpoints';
import { TestApp, TestWallet } from '../support/app';

type Schema = { properties: Record<string, { type?: string; $ref?: string }>; required: string[] };

describe('clients generated from the replaced service', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await TestApp.open('pglite');
  });
  afterAll(() => app.close());

  it('GET /api/v1/claim/init?publicKey= answers domain, nonce, issuedAt and message as strings', async () => {
    const wallet = new TestWallet();
    const response = await app.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = await response.json();
    for (const field of ['domain', 'nonce', 'issuedAt', 'message']) expect(typeof body[field], field).toBe('string');
    expect(body.message).toContain(body.nonce);
    expect(body.message.startsWith(`${body.domain} wants you to sign in with your Solana account:`)).toBe(true);
  });

  it('POST /api/v1/claim/wallet-pass with message, signature, publicKey and walletType answers downloadUrl', async () => {
    const wallet = new TestWallet();
    const { message } = await (await app.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}`)).json();
    const response = await app.fetch('/api/v1/claim/wallet-pass', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message, signature: wallet.sign(message), publicKey: wallet.publicKey, walletType: 'Phantom' }),
    });
    expect(response.status).toBe(201);
    const { downloadUrl } = await response.json();
    expect(typeof downloadUrl).toBe('string');
    expect((await app.fetch(new URL(downloadUrl).pathname + new URL(downloadUrl).search)).status).toBe(200);
  });

  it('the document keeps those fields under the same names, required, as strings', () => {
    const schemas = openApiDocument().components.schemas as Record<string, Schema>;
    const paths = openApiDocument().paths as Record<string, Record<string, any>>;
    const init = paths['/api/v1/claim/init']!.get;
    expect(init.parameters).toContainEqual(expect.objectContaining({ name: 'publicKey', in: 'query', required: true }));
    expect(init.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/InitResponse' });
    for (const field of ['domain', 'nonce', 'issuedAt', 'message']) {
      expect(schemas.InitResponse!.properties[field]!.type, field).toBe('string');
      expect(schemas.InitResponse!.required).toContain(field);
    }

    const claim = paths['/api/v1/claim/wallet-pass']!.post;
    expect(claim.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ClaimRequest' });
    expect(Object.keys(schemas.ClaimRequest!.properties)).toEqual(expect.arrayContaining(['message', 'signature', 'publicKey', 'walletType']));
    expect(schemas.ClaimRequest!.required.sort()).toEqual(['message', 'publicKey', 'signature']);
    for (const status of ['200', '201']) {
      expect(claim.responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ClaimResponse' });
    }
    expect(schemas.ClaimResponse!.properties.downloadUrl!.type).toBe('string');
    expect(schemas.ClaimResponse!.required).toEqual(['downloadUrl']);
  });
});
