// What the living-pass tests do over HTTP against a real server process: claim and install a pass
// as Wallet would, act as Wallet's web-service client, and void or restore a pass as an operator
// (the contract's operator API, signed in with a wallet of OPERATOR_WALLETS).
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../lib/config';
import { type PassDates, restorePass, updatePassDates, voidPass } from '../../lib/passes/lifecycle';
import { createServices, type Services } from '../../lib/services';
import type { ServerProcess } from '../../scripts/support/server-process';
import { type InspectedPass, inspectPkpass } from '../support/pkpass';
import { TestWallet } from '../support/wallet';

export const PASSKIT = '/passkit/v1';

export const newDeviceId = () => randomBytes(16).toString('hex');
export const newPushToken = () => randomBytes(32).toString('hex');

type Fetcher = Pick<ServerProcess, 'fetch'>;

export type InstalledPass = {
  wallet: TestWallet;
  downloadPath: string;
  pass: InspectedPass;
  serialNumber: string;
  passTypeIdentifier: string;
  authenticationToken: string;
  webServiceURL: string;
};

async function json<T>(response: Response, what: string): Promise<T> {
  if (!response.ok) throw new Error(`${what}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** Claims a pass for a new wallet and downloads it, as the claim page and Safari would (of `program`, when given; the default otherwise). */
export async function installPass(server: Fetcher, wallet = new TestWallet(), program?: string): Promise<InstalledPass> {
  const query = program ? `&program=${encodeURIComponent(program)}` : '';
  const { message } = await json<{ message: string }>(await server.fetch(`/api/v1/claim/init?publicKey=${wallet.publicKey}${query}`), 'init');
  const { downloadUrl } = await json<{ downloadUrl: string }>(
    await server.fetch('/api/v1/claim/wallet-pass', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message, signature: wallet.sign(message), publicKey: wallet.publicKey, ...(program ? { program } : {}) }),
    }),
    'claim',
  );
  const url = new URL(downloadUrl);
  const downloadPath = url.pathname + url.search;
  const download = await server.fetch(downloadPath);
  if (download.status !== 200) throw new Error(`download: ${download.status}`);
  const pass = inspectPkpass(Buffer.from(await download.arrayBuffer()));
  const { serialNumber, passTypeIdentifier, authenticationToken, webServiceURL } = pass.passJson as Record<string, string>;
  return {
    wallet,
    downloadPath,
    pass,
    serialNumber: serialNumber!,
    passTypeIdentifier: passTypeIdentifier!,
    authenticationToken: authenticationToken!,
    webServiceURL: webServiceURL!,
  };
}

/** Wallet's calls to the web service, for one installed pass. */
export const device = (server: Fetcher, installed: InstalledPass, deviceId = newDeviceId()) => ({
  deviceId,
  register: (pushToken: string, token = installed.authenticationToken) =>
    server.fetch(`${PASSKIT}/devices/${deviceId}/registrations/${installed.passTypeIdentifier}/${installed.serialNumber}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `ApplePass ${token}` },
      body: JSON.stringify({ pushToken }),
    }),
  unregister: (token = installed.authenticationToken) =>
    server.fetch(`${PASSKIT}/devices/${deviceId}/registrations/${installed.passTypeIdentifier}/${installed.serialNumber}`, {
      method: 'DELETE',
      headers: { authorization: `ApplePass ${token}` },
    }),
  list: (tag?: string) =>
    server.fetch(`${PASSKIT}/devices/${deviceId}/registrations/${installed.passTypeIdentifier}${tag ? `?passesUpdatedSince=${tag}` : ''}`),
  latest: (headers: Record<string, string> = {}) =>
    server.fetch(`${PASSKIT}/passes/${installed.passTypeIdentifier}/${installed.serialNumber}`, {
      headers: { authorization: `ApplePass ${installed.authenticationToken}`, ...headers },
    }),
  log: (logs: string[]) => server.fetch(`${PASSKIT}/log`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ logs }) }),
});

/** An operator session's bearer token, signed in with `wallet` (which must be in OPERATOR_WALLETS). */
export async function operatorToken(server: Fetcher, wallet: TestWallet): Promise<string> {
  const { message } = await json<{ message: string }>(await server.fetch(`/api/v1/operator/sessions/init?publicKey=${wallet.publicKey}`), 'operator init');
  const { token } = await json<{ token: string }>(
    await server.fetch('/api/v1/operator/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message, signature: wallet.sign(message), publicKey: wallet.publicKey }),
    }),
    'operator sign-in',
  );
  return token;
}

export function operatorAction(
  server: Fetcher,
  token: string,
  serialNumber: string,
  action: 'void' | 'restore',
  reason = 'revoked by the door test',
): Promise<Response> {
  return server.fetch(`/api/v1/operator/passes/${serialNumber}/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(action === 'void' ? { reason } : {}),
  });
}

/**
 * The service's own lifecycle functions (voidPass, restorePass, updatePassDates), run from the test process on the
 * database the server processes share, as an operator's console or the eligibility re-check would
 * run them there. Its job worker is stopped at once: every job is left to the servers.
 */
export class PassController {
  private constructor(private readonly services: Services) {}

  static async open(env: Record<string, string>): Promise<PassController> {
    const services = await createServices(loadConfig({ LOG_LEVEL: 'silent', ...env }));
    await services.jobs.stop();
    return new PassController(services);
  }

  void(serialNumber: string, reason: string) {
    return voidPass(this.services, serialNumber, reason);
  }

  restore(serialNumber: string) {
    return restorePass(this.services, serialNumber);
  }

  setDates(serialNumber: string, dates: PassDates) {
    return updatePassDates(this.services, serialNumber, dates);
  }

  close(): Promise<void> {
    return this.services.close();
  }
}
