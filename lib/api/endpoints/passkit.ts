// Living passes: Apple's PassKit web service (docs/living-passes.md), under /passkit/v1. Wallet
// authenticates with the pass's own token (`Authorization: ApplePass`), checked by the use cases.
import { latestPass, recordDeviceLogs, registerDevice, unregisterDevice, updatedSerials } from '../../passes/web-service';
import { type Endpoint, endpoint, type Reply } from '../endpoint';
import {
  deviceParamsSchema,
  logsBodySchema,
  passParamsSchema,
  pushTokenBodySchema,
  registrationParamsSchema,
  serialNumbersSchema,
  updatedSinceQuerySchema,
} from './passkit.schemas';

export const PASSKIT_ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'POST',
    path: '/passkit/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}/{serialNumber}',
    operationId: 'passkitRegisterDevice',
    tag: 'PassKit',
    summary: 'Register a device for a pass’s updates',
    description:
      "Wallet calls this when a pass is added: the device's push token is kept, and every change of the " +
      'pass sends it an APNs push. Needs `Authorization: ApplePass <authenticationToken>` (the token in ' +
      "the pass's pass.json). Registering again answers 200 and keeps one registration (with the newest " +
      'push token). A pass keeps at most DEVICES_PER_PASS devices (10 by default): a new one past it ' +
      'replaces the one registered longest ago.',
    params: registrationParamsSchema,
    body: { schema: pushTokenBodySchema, example: { pushToken: '8a9b7c6d5e4f30211f2e3d4c5b6a79880a9b8c7d6e5f40312f1e0d3c4b5a6978' } },
    requestHeaders: [{ name: 'Authorization', description: '`ApplePass <authenticationToken>`' }],
    responses: {
      200: { description: 'The device was already registered for this pass.' },
      201: { description: 'Registered.' },
    },
    problems: ['invalid_request', 'unauthorized', 'payload_too_large', 'unsupported_media_type'],
    rateLimited: true,
    handle: async ({ params, body, headers }, { services }) => {
      const { created } = await registerDevice(services, params, body.pushToken, headers.get('authorization'));
      return { status: created ? 201 : 200 };
    },
  }),
  endpoint({
    method: 'DELETE',
    path: '/passkit/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}/{serialNumber}',
    operationId: 'passkitUnregisterDevice',
    tag: 'PassKit',
    summary: 'Unregister a device from a pass’s updates',
    description:
      'Wallet calls this when the pass is removed from the device. Needs `Authorization: ApplePass ' +
      '<authenticationToken>`. 200 whether or not the device was registered.',
    params: registrationParamsSchema,
    requestHeaders: [{ name: 'Authorization', description: '`ApplePass <authenticationToken>`' }],
    responses: { 200: { description: 'Not registered (any more).' } },
    problems: ['invalid_request', 'unauthorized'],
    rateLimited: true,
    handle: async ({ params, headers }, { services }) => {
      await unregisterDevice(services, params, headers.get('authorization'));
      return { status: 200 };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/passkit/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}',
    operationId: 'passkitUpdatedSerials',
    tag: 'PassKit',
    summary: 'The serial numbers of a device’s passes that changed',
    description:
      'After a push, Wallet asks which of the passes this device registered changed since the tag it was ' +
      'given last time (`passesUpdatedSince`), then fetches each. Every pass changed after the tag is ' +
      'listed; without the tag, all of them. 204 when none.',
    params: deviceParamsSchema,
    query: updatedSinceQuerySchema,
    responses: {
      200: { description: 'Passes changed after the tag, and the next tag.', json: serialNumbersSchema },
      204: { description: 'No pass of this device changed after the tag.' },
    },
    problems: ['invalid_request'],
    handle: async ({ params, query }, { services }) => {
      const updated = await updatedSerials(services, params.deviceLibraryIdentifier, params.passTypeIdentifier, query.passesUpdatedSince);
      return updated ? { json: updated } : { status: 204, headers: { 'cache-control': 'no-store' } };
    },
  }),
  endpoint({
    method: 'GET',
    path: '/passkit/v1/passes/{passTypeIdentifier}/{serialNumber}',
    operationId: 'passkitLatestPass',
    tag: 'PassKit',
    summary: 'The latest version of a pass',
    description:
      'The current signed .pkpass, rebuilt after every change (a voided pass says `"voided": true`). Needs ' +
      '`Authorization: ApplePass <authenticationToken>`. `If-Modified-Since` at or after `Last-Modified`: ' +
      '304.',
    params: passParamsSchema,
    requestHeaders: [
      { name: 'Authorization', description: '`ApplePass <authenticationToken>`' },
      { name: 'If-Modified-Since', description: 'The Last-Modified of the copy the device has: 304 if the pass has not changed since.' },
    ],
    responses: {
      200: { description: 'The .pkpass file.', file: 'application/vnd.apple.pkpass', headers: ['Last-Modified', 'ETag', 'Cache-Control'] },
      304: { description: 'Not changed since If-Modified-Since.', headers: ['Last-Modified'] },
    },
    problems: ['invalid_request', 'unauthorized'],
    handle: async ({ params, headers }, { services }): Promise<Reply> => {
      const latest = await latestPass(services, params.passTypeIdentifier, params.serialNumber, headers.get('authorization'), headers.get('if-modified-since'));
      if (latest.kind === 'not_modified') {
        return { status: 304, headers: { 'last-modified': latest.lastModified.toUTCString(), 'cache-control': 'no-cache' } };
      }
      return {
        body: latest.file.pkpass,
        headers: {
          'content-type': 'application/vnd.apple.pkpass',
          'last-modified': latest.file.lastModified.toUTCString(),
          etag: latest.file.etag,
          'cache-control': 'no-cache',
        },
      };
    },
  }),
  endpoint({
    method: 'POST',
    path: '/passkit/v1/log',
    operationId: 'passkitLog',
    tag: 'PassKit',
    summary: 'Wallet’s error reports',
    description:
      'Wallet reports problems it met with this web service; they are written to the service log (at most 20 entries of 1,000 characters per request).',
    body: { schema: logsBodySchema, example: { logs: ['Web service error for pass.example: Response to GET was not a valid pass.'] } },
    responses: { 200: { description: 'Logged.' } },
    problems: ['invalid_request', 'payload_too_large', 'unsupported_media_type'],
    rateLimited: true,
    handle: ({ body }, { services }) => {
      recordDeviceLogs(services, body.logs);
      return { status: 200 };
    },
  }),
];
