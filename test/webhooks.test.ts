// Webhooks: the routes (the secret shown once, another user's webhook 404, validation, scope admin),
// deliveries signed as the Standard Webhooks specification says (checked with its package and by
// hand), the board and event-type filters, retries in order until the receiver answers, 410 and
// persistent failure disabling the webhook, the refusal of private addresses (in the url, after
// DNS, behind a redirect), and a kill -9 of the service between the change and the delivery.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { ApiKeyService } from '../src/auth/api-key-service.js';
import { openDatabase } from '../src/db/database.js';
import { EndpointRefused, hostOf, isPublicAddress, resolveEndpoint } from '../src/lib/outbound-address.js';
import type { Db } from '../src/db/schema.js';
import { newId } from '../src/lib/ids.js';
import type {
  BoardBody,
  ErrorBody,
  NodeBody,
  Webhook,
  WebhookBody,
  WebhookCreated,
  WebhookDeliveryList,
  WebhookList,
} from './helpers/api-types.js';
import { type ChildServer, startChildServer } from './helpers/child-server.js';
import { seedEmbeddedDatabase } from './helpers/embedded-template.js';
import { MISSING_ID, startServer, TIMESTAMP, type TestServer, type TestUser, useServer } from './helpers/harness.js';
import { type ReceivedRequest, startReceiver } from './helpers/webhook-receiver.js';
import { realPostgres } from './helpers/wire-database.js';

/** Seven retries over about 3.5 s: the default schedule's shape, fast enough for a test. */
const FAST_RETRIES = '50ms,100ms,200ms,400ms,800ms,1s,1s';
const ENV = { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: FAST_RETRIES, WEBHOOK_POLL_MS: '20', WEBHOOK_TIMEOUT_MS: '2000' };

interface Envelope {
  type: string;
  timestamp: string;
  data: { seq: number; type: string; board_id: string; actor_id: string | null; created_at: string; data: Record<string, unknown> };
}

const parse = (request: ReceivedRequest): Envelope => JSON.parse(request.body) as Envelope;
const seqs = (requests: ReceivedRequest[]): number[] => requests.map((r) => parse(r).data.seq);

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Resolves once none of the webhook's deliveries is pending. */
const settled = (db: Db, webhookId: string) =>
  until(
    `webhook ${webhookId} to settle`,
    async () =>
      (
        await db
          .selectFrom('webhook_deliveries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('webhook_id', '=', webhookId)
          .where('status', '=', 'pending')
          .executeTakeFirstOrThrow()
      ).n,
    (n) => Number(n) === 0,
  );

describe('webhooks', () => {
  const server: TestServer = useServer(ENV);

  const create = async (user: TestUser, body: Record<string, unknown>) => {
    const res = await server.request<WebhookCreated>('POST', '/v1/webhooks', { token: user.token, body });
    assert.equal(res.status, 201, res.text);
    return res.body.data;
  };
  const deliveries = async (user: TestUser, webhookId: string) => {
    const res = await server.request<WebhookDeliveryList>('GET', `/v1/webhooks/${webhookId}/deliveries?limit=100`, { token: user.token });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };
  const webhookOf = async (user: TestUser, webhookId: string): Promise<Webhook> => {
    const res = await server.request<WebhookBody>('GET', `/v1/webhooks/${webhookId}`, { token: user.token });
    assert.equal(res.status, 200, res.text);
    return res.body.data;
  };

  test('create shows the secret once; list and get never; another user gets 404', async () => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await server.makeBoard(alice);
    const created = await create(alice, { url: 'https://hooks.example.com/board', event_types: ['node.created'], board_id: boardId });
    assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(created.secret.slice(6), 'base64').length, 32);
    assert.equal(created.url, 'https://hooks.example.com/board');
    assert.deepEqual(created.event_types, ['node.created']);
    assert.equal(created.board_id, boardId);
    assert.equal(created.enabled, true);
    assert.equal(created.disabled_reason, null);
    assert.match(String(created.created_at), TIMESTAMP);

    const list = await server.request<WebhookList>('GET', '/v1/webhooks', { token: alice.token });
    assert.equal(list.status, 200, list.text);
    assert.deepEqual(
      list.body.data.map((w) => w.id),
      [created.id],
    );
    assert.ok(!list.text.includes(created.secret) && !list.text.includes('secret'), list.text);
    const one = await server.request<WebhookBody>('GET', `/v1/webhooks/${created.id}`, { token: alice.token });
    assert.equal(one.status, 200);
    assert.ok(!one.text.includes('secret'), one.text);
    const { secret: _secret, ...shown } = created;
    assert.deepEqual(one.body.data, shown);

    for (const [method, url] of [
      ['GET', `/v1/webhooks/${created.id}`],
      ['GET', `/v1/webhooks/${created.id}/deliveries`],
      ['DELETE', `/v1/webhooks/${created.id}`],
      ['GET', `/v1/webhooks/${MISSING_ID}`],
    ] as const) {
      const res = await server.request<ErrorBody>(method, url, { token: bob.token });
      assert.equal(res.status, 404, `${method} ${url}: ${res.text}`);
      assert.equal(res.body.message, 'Webhook not found');
    }
    assert.deepEqual((await server.request<WebhookList>('GET', '/v1/webhooks', { token: bob.token })).body.data, []);

    const deleted = await server.request('DELETE', `/v1/webhooks/${created.id}`, { token: alice.token });
    assert.equal(deleted.status, 200, deleted.text);
    assert.equal((await server.request('GET', `/v1/webhooks/${created.id}`, { token: alice.token })).status, 404);
  });

  test('refuses bad urls, unknown event types, boards the caller cannot see, and keys without admin', async () => {
    const alice = await server.user();
    const bob = await server.user();
    const privateBoard = await server.makeBoard(alice);
    const publicBoard = await server.makeBoard(alice, { is_public: true });
    const refused: [unknown, RegExp][] = [
      ['not a url', /absolute https URL/],
      ['ftp://hooks.example.com/x', /absolute https URL/],
      ['http://hooks.example.com/x', /must use https/],
      ['http://localhost:8080/x', /must use https/],
      ['https://user:pass@hooks.example.com/x', /credentials/],
      ['https://127.0.0.2/x', /non-public address/],
      ['https://10.1.2.3/x', /non-public address/],
      ['https://192.168.0.1/x', /non-public address/],
      ['https://169.254.169.254/latest/meta-data', /non-public address/],
      ['https://[::1]/x', /non-public address/],
      ['https://[fd00::1]/x', /non-public address/],
      ['https://[fe80::1]/x', /non-public address/],
      ['https://[::ffff:10.0.0.1]/x', /non-public address/],
      ['https://0.0.0.0/x', /non-public address/],
      ['https://2130706434/x', /non-public address/],
      [`https://hooks.example.com/${'a'.repeat(2048)}`, /url/],
    ];
    for (const [url, message] of refused) {
      const res = await server.request<ErrorBody>('POST', '/v1/webhooks', { token: alice.token, body: { url } });
      assert.equal(res.status, 400, `${url}: ${res.text}`);
      assert.match(res.body.message, message, String(url));
    }
    const badType = await server.request('POST', '/v1/webhooks', {
      token: alice.token,
      body: { url: 'https://hooks.example.com/x', event_types: ['node.exploded'] },
    });
    assert.equal(badType.status, 400, badType.text);
    const extra = await server.request('POST', '/v1/webhooks', {
      token: alice.token,
      body: { url: 'https://hooks.example.com/x', secret: 'mine' },
    });
    assert.equal(extra.status, 400, extra.text);

    // Another user's private board does not exist for Bob; a public one he may follow.
    const hidden = await server.request<ErrorBody>('POST', '/v1/webhooks', {
      token: bob.token,
      body: { url: 'https://hooks.example.com/x', board_id: privateBoard },
    });
    assert.equal(hidden.status, 404, hidden.text);
    assert.equal(hidden.body.message, 'Board not found');
    await create(bob, { url: 'https://hooks.example.com/x', board_id: publicBoard });

    const writeKey = (await alice.keyWith(['read', 'write'])).raw_key;
    for (const [method, url] of [
      ['POST', '/v1/webhooks'],
      ['GET', '/v1/webhooks'],
    ] as const) {
      const res = await server.request<ErrorBody>(method, url, {
        token: writeKey,
        body: method === 'POST' ? { url: 'https://hooks.example.com/x' } : undefined,
      });
      assert.equal(res.status, 403, res.text);
      assert.equal(res.body.message, 'Missing required scope: admin');
    }
  });

  test('an IPv6 address is judged by the IPv4 address it carries, at creation and before each attempt', async () => {
    const alice = await server.user();
    // [address, allowed]: every IPv6 form that embeds an IPv4 address, with a private and a public one.
    const table: [string, boolean][] = [
      ['::127.0.0.1', false], // IPv4-compatible (::/96)
      ['::a9fe:a9fe', false], // IPv4-compatible 169.254.169.254, written in hex
      ['::1:7f00:1', false], // neither compatible nor mapped, outside global unicast (2000::/3)
      ['::8.8.8.8', false], // IPv4-compatible is deprecated and routed nowhere, whatever it embeds
      ['::ffff:127.0.0.1', false], // IPv4-mapped
      ['::ffff:a00:1', false], // IPv4-mapped 10.0.0.1
      ['::ffff:8.8.8.8', true],
      ['::ffff:0:7f00:1', false], // IPv4-translated (::ffff:0:0:0/96)
      ['64:ff9b::7f00:1', false], // NAT64
      ['64:ff9b::a9fe:a9fe', false],
      ['64:ff9b::808:808', true],
      ['64:ff9b:1::808:808', false], // local-use NAT64 (64:ff9b:1::/48) is not globally routable
      ['2002:7f00:1::1', false], // 6to4 of 127.0.0.1
      ['2002:c0a8:101::1', false], // 6to4 of 192.168.1.1
      ['2002:808:808::1', true],
      ['2001:0:7f00:1:0:0:f7ff:fffe', false], // Teredo: server 127.0.0.1, client 8.0.0.1
      ['2001:0:808:808:0:0:f5ff:fffe', false], // Teredo: server 8.8.8.8, client 10.0.0.1
      ['2001:0:808:808:0:0:f7f7:f7f7', true], // Teredo: server 8.8.8.8, client 8.8.8.8
      ['::', false],
      ['::1', false],
      ['100::1', false], // discard-only
      ['2001:db8::1', false], // documentation
      ['2001:2::1', false], // benchmarking
      ['4000::1', false], // not yet allocated: outside 2000::/3
      ['fc00::1', false],
      ['fe80::1', false],
      ['ff02::1', false],
      ['2606:4700:4700::1111', true],
      ['2001:4860:4860::8888', true],
    ];
    for (const [address, allowed] of table) {
      const url = `https://[${address}]/hook`;
      const res = await server.request<WebhookCreated | ErrorBody>('POST', '/v1/webhooks', { token: alice.token, body: { url } });
      if (allowed) {
        assert.equal(res.status, 201, `${address}: ${res.text}`);
        await server.request('DELETE', `/v1/webhooks/${(res.body as WebhookCreated).data.id}`, { token: alice.token });
        assert.deepEqual(await resolveEndpoint(new URL(url), []), [{ address: hostOf(new URL(url)), family: 6 }]);
      } else {
        assert.equal(res.status, 400, `${address}: ${res.text}`);
        assert.match((res.body as ErrorBody).message, /non-public address/, address);
        await assert.rejects(resolveEndpoint(new URL(url), []), EndpointRefused, address);
      }
      assert.equal(isPublicAddress(address), allowed, address);
    }
  });

  test('a user may have at most WEBHOOKS_MAX_PER_USER webhooks', async () => {
    const carol = await server.user();
    for (let i = 0; i < server.config.webhooks.maxPerUser; i++)
      await create(carol, { url: `https://hooks.example.com/${i}`, event_types: ['board.deleted'] });
    const over = await server.request<ErrorBody>('POST', '/v1/webhooks', {
      token: carol.token,
      body: { url: 'https://hooks.example.com/over' },
    });
    assert.equal(over.status, 409, over.text);
    assert.equal(over.body.code, 'conflict');
    const page = await server.request<WebhookList>('GET', '/v1/webhooks?limit=15', { token: carol.token });
    assert.equal(page.body.data.length, 15);
    assert.equal(page.body.has_more, true);
    const rest = await server.request<WebhookList>('GET', `/v1/webhooks?limit=15&cursor=${page.body.cursor}`, { token: carol.token });
    assert.equal(rest.body.data.length, server.config.webhooks.maxPerUser - 15);
  });

  test('a delivery is signed as the specification says, checked with its package and by hand', async () => {
    const receiver = await startReceiver();
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const hook = await create(alice, { url: receiver.url, board_id: boardId });
    const node = await server.makeNode(alice, boardId, { data: { text: 'signed' } });
    await receiver.waitFor((r) => r.length === 1);
    const request = receiver.received[0]!;

    const verified = new StandardWebhook(hook.secret).verify(request.body, request.headers) as Envelope;
    assert.equal(verified.type, 'node.created');

    // By hand: HMAC-SHA256 of `${id}.${timestamp}.${body}`, keyed with the base64-decoded secret.
    const id = request.headers['webhook-id']!;
    const timestamp = request.headers['webhook-timestamp']!;
    assert.equal(id, `evt_${boardId}_1`);
    assert.match(timestamp, /^\d{10}$/);
    assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 60, timestamp);
    const key = Buffer.from(hook.secret.slice('whsec_'.length), 'base64');
    const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64')}`;
    assert.ok(request.headers['webhook-signature']!.split(' ').includes(expected), request.headers['webhook-signature']);
    assert.match(request.headers['content-type']!, /^application\/json/);

    // The envelope around the event exactly as the change log holds it.
    const envelope = parse(request);
    assert.deepEqual(Object.keys(envelope), ['type', 'timestamp', 'data']);
    assert.match(envelope.timestamp, TIMESTAMP);
    const events = await server.request<{ data: unknown[] }>('GET', `/v1/boards/${boardId}/events?after=0`, { token: alice.token });
    assert.deepEqual(envelope.data, events.body.data[0]);
    assert.equal(envelope.timestamp, envelope.data.created_at);
    assert.deepEqual(envelope.data.data, JSON.parse(JSON.stringify(node)));

    await settled(server.database.db, hook.id);
    const [delivery] = await deliveries(alice, hook.id);
    assert.equal(delivery!.status, 'succeeded');
    assert.equal(delivery!.attempts, 1);
    assert.equal(delivery!.last_status_code, 200);
    assert.equal(delivery!.message_id, id);
    assert.equal(delivery!.next_attempt_at, null);
    assert.match(String(delivery!.delivered_at), TIMESTAMP);
  });

  test('the board and event-type filters, and only what the webhook owner may read', async () => {
    const receiver = await startReceiver();
    const alice = await server.user();
    const bob = await server.user();
    const a = await server.makeBoard(alice, { is_public: true });
    const b = await server.makeBoard(alice);
    const onA = await create(alice, { url: `${receiver.url}/a`, board_id: a });
    const typed = await create(alice, { url: `${receiver.url}/typed`, event_types: ['edge.created', 'board.updated'] });
    const bobs = await create(bob, { url: `${receiver.url}/bob`, board_id: a });
    // Bob has no boards: his webhook for all of them gets nothing of Alice's.
    const bobAll = await create(bob, { url: `${receiver.url}/bob-all` });

    const n1 = await server.makeNode(alice, a);
    const n2 = await server.makeNode(alice, a);
    await server.makeEdge(alice, a, n1.id, n2.id);
    await server.makeNode(alice, b);
    assert.equal((await server.request('PATCH', `/v1/boards/${b}`, { token: alice.token, body: { name: 'B' } })).status, 200);
    // Made private: Bob no longer reads board A, so he gets neither this nor what follows.
    assert.equal((await server.request('PATCH', `/v1/boards/${a}`, { token: alice.token, body: { is_public: false } })).status, 200);
    await server.makeNode(alice, a);
    for (const hook of [onA, typed, bobs, bobAll]) await settled(server.database.db, hook.id);

    const at = (p: string) => receiver.received.filter((r) => r.path === `/hook/${p}`).map(parse);
    assert.deepEqual(
      at('a').map((e) => [e.data.board_id, e.data.seq, e.type]),
      [
        [a, 1, 'node.created'],
        [a, 2, 'node.created'],
        [a, 3, 'edge.created'],
        [a, 4, 'board.updated'],
        [a, 5, 'node.created'],
      ],
    );
    assert.deepEqual(
      at('typed').map((e) => [e.data.board_id, e.type]),
      [
        [a, 'edge.created'],
        [b, 'board.updated'],
        [a, 'board.updated'],
      ],
    );
    assert.deepEqual(
      at('bob').map((e) => e.data.seq),
      [1, 2, 3],
    );
    assert.deepEqual(at('bob-all'), []);
  });

  test('a receiver answering 500 gets every event once it answers 200, in order, each accepted once', async () => {
    const receiver = await startReceiver();
    receiver.answer = (_request, index) => (index < 3 ? 500 : 200);
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const hook = await create(alice, { url: receiver.url });
    for (let i = 0; i < 4; i++) await server.makeNode(alice, boardId);
    await settled(server.database.db, hook.id);

    // The failing first event held the later ones back: it alone was tried until it succeeded.
    assert.deepEqual(seqs(receiver.received), [1, 1, 1, 1, 2, 3, 4]);
    const accepted = receiver.received.filter((r) => r.status === 200);
    assert.deepEqual(
      accepted.map((r) => r.headers['webhook-id']),
      [1, 2, 3, 4].map((seq) => `evt_${boardId}_${seq}`),
    );
    // Every attempt carries the same id and body, freshly signed.
    const first = receiver.received.slice(0, 4);
    assert.equal(new Set(first.map((r) => r.headers['webhook-id'])).size, 1);
    assert.equal(new Set(first.map((r) => r.body)).size, 1);
    for (const r of receiver.received) new StandardWebhook(hook.secret).verify(r.body, r.headers);

    const list = await deliveries(alice, hook.id);
    assert.deepEqual(
      list.map((d) => [d.seq, d.status, d.attempts, d.last_status_code]),
      [
        [4, 'succeeded', 1, 200],
        [3, 'succeeded', 1, 200],
        [2, 'succeeded', 1, 200],
        [1, 'succeeded', 4, 200],
      ],
    );
  });

  test('a receiver down, then up, gets every event once, in order', async () => {
    const receiver = await startReceiver();
    await receiver.down();
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const hook = await create(alice, { url: receiver.url });
    for (let i = 0; i < 3; i++) await server.makeNode(alice, boardId);
    const failing = await until(
      'a failed attempt',
      () => deliveries(alice, hook.id),
      (list) => list.some((d) => d.attempts >= 2),
    );
    const head = failing.find((d) => d.seq === 1)!;
    assert.equal(head.status, 'pending');
    assert.match(head.last_error ?? '', /Could not reach the endpoint: ECONNREFUSED/);
    assert.match(String(head.next_attempt_at), TIMESTAMP);
    await receiver.up();
    await settled(server.database.db, hook.id);
    assert.deepEqual(seqs(receiver.received), [1, 2, 3]);
    assert.ok((await deliveries(alice, hook.id)).every((d) => d.status === 'succeeded'));
  });

  test('410 disables the webhook at once; its pending deliveries are not sent', async () => {
    const receiver = await startReceiver();
    // The answer waits until the second event is queued behind the first.
    let release = () => {};
    const queued = new Promise<void>((resolve) => {
      release = resolve;
    });
    receiver.answer = async () => {
      await queued;
      return 410;
    };
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const hook = await create(alice, { url: receiver.url });
    await server.makeNode(alice, boardId);
    await server.makeNode(alice, boardId);
    release();
    const disabled = await until(
      'the webhook disabled',
      () => webhookOf(alice, hook.id),
      (w) => !w.enabled,
    );
    assert.equal(disabled.disabled_reason, 'The endpoint answered 410 Gone');
    assert.match(String(disabled.disabled_at), TIMESTAMP);
    await settled(server.database.db, hook.id);
    assert.deepEqual(
      (await deliveries(alice, hook.id)).map((d) => [d.seq, d.status, d.attempts, d.last_error]),
      [
        [2, 'failed', 0, 'Not sent: the webhook was disabled'],
        [1, 'failed', 1, 'The endpoint answered 410: failed with 410'],
      ],
    );
    // A disabled webhook queues nothing more.
    await server.makeNode(alice, boardId);
    assert.equal((await deliveries(alice, hook.id)).length, 2);
    assert.equal(receiver.received.length, 1);
  });

  test('a delivery failing through the whole retry schedule fails, and disables its webhook', async () => {
    const receiver = await startReceiver();
    receiver.answer = () => 503;
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const hook = await create(alice, { url: receiver.url });
    await server.makeNode(alice, boardId);
    const disabled = await until(
      'the webhook disabled',
      () => webhookOf(alice, hook.id),
      (w) => !w.enabled,
    );
    const attempts = server.config.webhooks.retryScheduleMs.length + 1;
    assert.equal(disabled.disabled_reason, `A delivery failed ${attempts} attempts in a row: The endpoint answered 503: failed with 503`);
    assert.equal(receiver.received.length, attempts);
    const [delivery] = await deliveries(alice, hook.id);
    assert.deepEqual([delivery!.status, delivery!.attempts, delivery!.last_status_code], ['failed', attempts, 503]);
  });

  test('a board-filtered webhook gets board.deleted, then is disabled', async () => {
    const receiver = await startReceiver();
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const hook = await create(alice, { url: receiver.url, board_id: boardId });
    await server.makeNode(alice, boardId);
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}`, { token: alice.token })).status, 200);
    await settled(server.database.db, hook.id);
    assert.deepEqual(
      receiver.received.map((r) => parse(r).type),
      ['node.created', 'board.deleted'],
    );
    const disabled = await webhookOf(alice, hook.id);
    assert.equal(disabled.enabled, false);
    assert.equal(disabled.disabled_reason, 'The board was deleted');
  });

  test('private addresses are refused after DNS, and behind a redirect', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    // localhost is not in WEBHOOK_ALLOWED_HOSTS (127.0.0.1 is): accepted as a name, refused once resolved.
    const target = await startReceiver();
    const byName = await create(alice, { url: `https://localhost:${target.port}/hook`, board_id: boardId });
    // An allowed receiver that redirects to the same loopback receiver by name.
    const redirecting = await startReceiver();
    redirecting.answer = () => ({ status: 307, headers: { location: `http://localhost:${target.port}/hook` } });
    const redirected = await create(alice, { url: redirecting.url, board_id: boardId });
    await server.makeNode(alice, boardId);

    const [refused] = await until(
      'the refusal after DNS',
      () => deliveries(alice, byName.id),
      (list) => list[0]!.attempts >= 2,
    );
    assert.match(
      refused!.last_error ?? '',
      /^Refused: localhost resolves to (127\.0\.0\.1|::1), a private, loopback, link-local or otherwise non-public address$/,
    );
    assert.equal(refused!.last_status_code, null);
    // An attempt is counted when it is claimed, before its request is sent: the second attempt's
    // count can show while its request is still on its way to the receiver.
    const [bounced] = await until(
      'the redirect refused, and tried again',
      () => deliveries(alice, redirected.id),
      (list) => list[0]!.attempts >= 2 && redirecting.received.length >= 2,
    );
    assert.match(bounced!.last_error ?? '', /answered 307, a redirect to http:\/\/localhost:\d+\/hook; webhooks follow no redirects/);
    assert.equal(bounced!.status, 'pending');
    assert.ok(redirecting.received.length >= 2);
    assert.equal(target.received.length, 0, 'the private address was reached');
    for (const hook of [byName, redirected]) {
      assert.equal((await server.request('DELETE', `/v1/webhooks/${hook.id}`, { token: alice.token })).status, 200);
    }
  });
});

describe('two instances on one PostgreSQL', { skip: realPostgres ? false : 'needs a real PostgreSQL server (TEST_POSTGRES_URL)' }, () => {
  test('send every event once, in order per board, never two at once to one webhook', async () => {
    const one = await startServer(ENV);
    const two = await startServer(ENV);
    try {
      const receiver = await startReceiver();
      let inFlight = 0;
      let overlapped = false;
      // Each answer takes a moment, so a second sender taking the next delivery early would overlap.
      receiver.answer = async () => {
        inFlight++;
        if (inFlight > 1) overlapped = true;
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        return 200;
      };
      const alice = await one.user();
      const boards = [await one.makeBoard(alice), await one.makeBoard(alice)];
      const hook = await one.request<WebhookCreated>('POST', '/v1/webhooks', { token: alice.token, body: { url: receiver.url } });
      assert.equal(hook.status, 201, hook.text);
      await Promise.all(
        boards.map(async (boardId, b) => {
          for (let i = 0; i < 10; i++) await (i % 2 ? one : two).makeNode(alice, boardId, { data: { text: `${b}.${i}` } });
        }),
      );
      await settled(one.database.db, hook.body.data.id);
      for (const boardId of boards) {
        assert.deepEqual(
          seqs(receiver.received.filter((r) => parse(r).data.board_id === boardId)),
          Array.from({ length: 10 }, (_, i) => i + 1),
        );
      }
      assert.equal(receiver.received.length, 20);
      assert.equal(overlapped, false);
    } finally {
      await one.close();
      await two.close();
    }
  });
});

describe('a kill -9 between the change and the delivery', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bwk-webhooks-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  // Its own embedded database, or in the wire run on a real PostgreSQL this file's database (the
  // server of the describe above has closed by then, so only the child sends).
  const databaseUrl = realPostgres ? process.env.TEST_DATABASE_URL! : undefined;
  const database: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl, DATABASE_POOL_MAX: '4' } : { DATA_DIR: dataDir };
  const env: Record<string, string> = {
    ...database,
    ...ENV,
    WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,400ms,800ms,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s,1s',
    WEBHOOK_TIMEOUT_MS: '1000',
  };

  const call = async <T>(child: ChildServer, token: string, method: string, urlPath: string, body?: unknown) => {
    const res = await fetch(`${child.url}${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as T };
  };

  test('every event queued before the kill arrives once, in order, after the restart', async () => {
    // Embedded, a copy of the migrated template (as the harness's servers start from).
    if (!databaseUrl) await seedEmbeddedDatabase(dataDir);
    const handle = await openDatabase({ dataDir, databaseUrl, databasePoolMax: 1 });
    const { raw_key: token } = await new ApiKeyService({ db: handle.db, env: 'test' }).createForSubject(newId(), {
      name: 'kill',
      scopes: ['read', 'write', 'admin'],
    });
    await handle.close();

    const receiver = await startReceiver();
    await receiver.down();
    let child = await startChildServer(env);
    const board = await call<BoardBody>(child, token, 'POST', '/v1/boards', { name: 'killed' });
    assert.equal(board.status, 201);
    const boardId = board.body.data.id;
    const hook = await call<WebhookCreated>(child, token, 'POST', '/v1/webhooks', { url: receiver.url });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const N = 6;
    for (let i = 0; i < N; i++) {
      const node = await call<NodeBody>(child, token, 'POST', `/v1/boards/${boardId}/nodes`, {
        type: 'note',
        position: { x: i, y: 0 },
        data: { text: `note ${i}` },
      });
      assert.equal(node.status, 201);
    }
    child.proc.kill('SIGKILL');
    await child.exit;

    child = await startChildServer(env);
    await receiver.up();
    await receiver.waitFor((r) => r.length >= N, 30_000);
    await until(
      'every delivery to succeed',
      () => call<WebhookDeliveryList>(child, token, 'GET', `/v1/webhooks/${hook.body.data.id}/deliveries?limit=100`),
      (res) => res.body.data.length === N && res.body.data.every((d) => d.status === 'succeeded'),
      30_000,
    );
    assert.deepEqual(
      seqs(receiver.received),
      Array.from({ length: N }, (_, i) => i + 1),
    );
    for (const r of receiver.received) new StandardWebhook(hook.body.data.secret).verify(r.body, r.headers);
    child.proc.kill('SIGTERM');
    await child.exit;
  });
});
