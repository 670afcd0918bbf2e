// Messages to a program's holders and the updates that carry changes and messages to every device
// (docs/programs.md): thin entries over lib/updates.
import { getUpdate, getUpdates, sendMessage } from '../../updates/updates';
import { type Endpoint, endpoint } from '../endpoint';
import { programParamsSchema } from './programs.schemas';
import { messageBodySchema, messageSentSchema, updateJson, updateListSchema, updateParamsSchema, updateSchema } from './updates.schemas';

const EXAMPLE_UPDATE = {
  id: 'upd_q3Jx0yH1m8Zt5Lr7',
  program: 'summit-2026',
  kind: 'message',
  status: 'running',
  passes: 480,
  devicesTotal: 611,
  devicesPushed: 402,
  devicesFailed: 3,
  startedAt: '2026-12-12T08:00:00.000Z',
  finishedAt: null,
};

export const UPDATE_ENDPOINTS: readonly Endpoint[] = [
  endpoint({
    method: 'POST',
    path: '/api/v1/operator/programs/{slug}/messages',
    operationId: 'sendProgramMessage',
    tag: 'Programs',
    summary: 'Send a message to every holder of a program',
    description:
      'Every active pass of the program shows the text on its back, in a field whose `changeMessage` is `%@` ' +
      '(Wallet shows it as a notification), and every registered device is pushed: an update, followed at ' +
      '`GET /api/v1/operator/updates/{id}`. Only a `live` program takes messages: a closed one is ' +
      '`403 program_closed`, a draft or unknown one `404 program_not_found`; then nothing is sent.',
    auth: 'operator',
    params: programParamsSchema,
    body: { schema: messageBodySchema, example: { text: 'Doors open at 7 pm tonight.' } },
    invalidExample: { text: '' },
    responses: {
      202: {
        description: 'Sent: the update carries it to every device.',
        json: messageSentSchema,
        example: { id: EXAMPLE_UPDATE.id, passes: 480, devices: 611 },
      },
    },
    problems: ['invalid_request', 'program_not_found', 'program_closed', 'payload_too_large', 'unsupported_media_type'],
    handle: async ({ params, body }, { services }) => ({ status: 202, json: await sendMessage(services, params.slug, body.text) }),
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/updates',
    operationId: 'listUpdates',
    tag: 'Programs',
    summary: 'List updates',
    description: 'The latest 100 program changes and messages, newest first, each with its progress.',
    auth: 'operator',
    responses: { 200: { description: 'The updates.', json: updateListSchema, example: { updates: [EXAMPLE_UPDATE] } } },
    problems: [],
    handle: async (_, { services }) => ({ json: { updates: (await getUpdates(services)).map(updateJson) } }),
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/operator/updates/{id}',
    operationId: 'getUpdate',
    tag: 'Programs',
    summary: 'Read an update',
    description: 'A program change or a message and how far it has got: devices pushed and failed of the total.',
    auth: 'operator',
    params: updateParamsSchema,
    malformedInput: 'update_not_found',
    responses: { 200: { description: 'The update.', json: updateSchema, example: EXAMPLE_UPDATE } },
    problems: ['update_not_found'],
    handle: async ({ params }, { services }) => ({ json: updateJson(await getUpdate(services, params.id)) }),
  }),
];
