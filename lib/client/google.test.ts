import { describe, expect, it } from 'vitest';
import { ClaimApiError, createClaimClient } from './index';

const DOWNLOAD_URL = 'https://passes.example.com/download?pass=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde';

/** A client whose fetch answers with `response` and records the URL it was asked for. */
function clientAnswering(response: () => Response) {
  const asked: string[] = [];
  const client = createClaimClient({
    baseUrl: 'https://passes.example.com',
    fetch: async (input) => {
      asked.push(String(input));
      return response();
    },
  });
  return { client, asked };
}

describe('googleSaveUrl: the "Save to Google Wallet" link of a pass', () => {
  it('asks for the pass of the download URL and returns its saveUrl', async () => {
    const { client, asked } = clientAnswering(() => Response.json({ saveUrl: 'https://pay.google.com/gp/v/save/eyJ' }));
    expect(await client.googleSaveUrl(DOWNLOAD_URL)).toBe('https://pay.google.com/gp/v/save/eyJ');
    expect(asked).toEqual(['https://passes.example.com/api/v1/passes/google?pass=AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcde']);
  });

  it('is null when the service has no Google Wallet link (404)', async () => {
    const { client } = clientAnswering(() => new Response('Not found', { status: 404 }));
    expect(await client.googleSaveUrl(DOWNLOAD_URL)).toBeNull();
  });

  it('refuses a saveUrl that is not https (it becomes a link on the page)', async () => {
    const { client } = clientAnswering(() => Response.json({ saveUrl: 'javascript:alert(1)' }));
    await expect(client.googleSaveUrl(DOWNLOAD_URL)).rejects.toBeInstanceOf(ClaimApiError);
  });

  it('throws on other failures, for the caller to decide', async () => {
    const { client } = clientAnswering(() => new Response('', { status: 503 }));
    await expect(client.googleSaveUrl(DOWNLOAD_URL)).rejects.toMatchObject({ code: 'service_unavailable' });
  });
});
