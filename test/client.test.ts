// The published typed client (client/): it must match what the service serves, byte for byte, so
// the web app and other TypeScript users cannot drift from the API silently; and it must work
// against the running service.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, test } from 'node:test';
import { createBoardClient, errorMessage } from '../client/src/index.js';
import { CLIENT_SCHEMA_FILE, CLIENT_SPEC_FILE, schemaText, specText } from '../scripts/generate-client.js';
import { MISSING_ID, type TestUser, useServer } from './helpers/harness.js';

const server = useServer();
let alice: TestUser;

before(async () => {
  alice = await server.user();
});

const STALE = 'client/ is out of date with the API: run `npm run client:generate` and commit the result';

test('client/openapi.json and client/src/schema.ts are what the service serves', async () => {
  const served = await server.request('GET', '/v1/openapi.json');
  assert.equal(served.status, 200);
  assert.equal(fs.readFileSync(CLIENT_SPEC_FILE, 'utf8'), specText(served.body), STALE);
  assert.equal(fs.readFileSync(CLIENT_SCHEMA_FILE, 'utf8'), await schemaText(served.body), STALE);
});

test('the typed client creates, reads and lists boards and reports error envelopes', async () => {
  const api = createBoardClient({ baseUrl: server.url, token: alice.token });
  const created = await api.POST('/v1/boards', { body: { name: 'From the client' } });
  assert.equal(created.response.status, 201);
  const id = created.data!.data.id;
  const read = await api.GET('/v1/boards/{id}', { params: { path: { id } } });
  assert.equal(read.data?.data.name, 'From the client');
  const listed = await api.GET('/v1/boards', { params: { query: { limit: 10 } } });
  assert.ok(listed.data?.data.some((b) => b.id === id));

  const missing = await api.GET('/v1/boards/{id}', { params: { path: { id: MISSING_ID } } });
  assert.equal(missing.response.status, 404);
  assert.equal(errorMessage(missing.error), 'Board not found');

  let asked = 0;
  const lazy = createBoardClient({
    baseUrl: server.url,
    getToken: () => {
      asked++;
      return alice.token;
    },
  });
  assert.equal((await lazy.GET('/v1/boards')).response.status, 200);
  assert.equal(asked, 1);
  const anonymous = createBoardClient({ baseUrl: server.url });
  const denied = await anonymous.GET('/v1/boards');
  assert.equal(denied.response.status, 401);
  assert.equal(errorMessage(denied.error, 'x') !== 'x', true);
});
