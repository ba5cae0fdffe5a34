// The board change log and its event stream: every committed change once, in order, resumable;
// nothing for a rolled-back write; the stream ends when the caller may no longer read the board.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { PDFDocument } from 'pdf-lib';
import { uploadFile } from './helpers/assets.js';
import { follow, type FollowedStream } from './helpers/event-stream.js';
import { useServer, startServer, isErrorEnvelope } from './helpers/harness.js';
import { clientNotifications } from '../src/db/notifications.js';
import { announcerOf, BOARD_EVENTS_CHANNEL, parseAnnouncement } from '../src/events/announcer.js';

// node-postgres warns (once a process) when a query is sent while another waits on the same
// connection; pg 9 will refuse it. Heard from before the first server starts.
const queuedQueryWarnings: string[] = [];
process.on('warning', (warning) => {
  if (/already executing a query/.test(warning.message)) queuedQueryWarnings.push(warning.message);
});

const server = useServer();
const open: FollowedStream[] = [];
after(() => {
  for (const stream of open) stream.close();
});
const watch = (...args: Parameters<typeof follow>) => {
  const stream = follow(...args);
  open.push(stream);
  return stream;
};

interface EventPage {
  data: { seq: number; type: string; board_id: string; actor_id: string | null; created_at: string; data: Record<string, unknown> }[];
  has_more: boolean;
  cursor: string | null;
  latest_seq: number;
  reset: boolean;
}

describe('the event stream', () => {
  test('streams each change once, in order, with the resource as the API answers it', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const stream = watch(server.url, boardId, alice.token);
    const ready = await stream.waitFor((e) => e.type === 'ready');
    assert.deepEqual(ready.data, { latest_seq: 0 });

    const a = await server.makeNode(alice, boardId, { data: { label: 'a', text: 'first' } });
    const b = await server.makeNode(alice, boardId);
    const edge = await server.makeEdge(alice, boardId, a.id, b.id);
    const moved = await server.request<{ data: Record<string, unknown> }>('PATCH', `/v1/boards/${boardId}/nodes/${a.id}`, {
      token: alice.token,
      body: { position: { x: 40, y: 50 } },
    });
    assert.equal(moved.status, 200);
    const renamed = await server.request<{ data: Record<string, unknown> }>('PATCH', `/v1/boards/${boardId}`, {
      token: alice.token,
      body: { name: 'Renamed' },
    });
    assert.equal(renamed.status, 200);
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/edges/${edge.id}`, { token: alice.token })).status, 200);

    await stream.waitFor((e) => e.type === 'edge.deleted');
    const changes = stream.events.filter((e) => e.type !== 'ready');
    assert.deepEqual(
      changes.map((e) => [e.id, e.type]),
      [
        ['1', 'node.created'],
        ['2', 'node.created'],
        ['3', 'edge.created'],
        ['4', 'node.updated'],
        ['5', 'board.updated'],
        ['6', 'edge.deleted'],
      ],
    );
    for (const e of changes) {
      assert.equal(e.data.board_id, boardId);
      assert.equal(e.data.actor_id, alice.userId);
      assert.equal(e.data.seq, Number(e.id));
    }
    // The resource exactly as the API answered it.
    assert.deepEqual(changes[0]!.data.data, JSON.parse(JSON.stringify(a)));
    assert.deepEqual(changes[2]!.data.data, JSON.parse(JSON.stringify(edge)));
    assert.deepEqual(changes[3]!.data.data, moved.body.data);
    assert.deepEqual(changes[4]!.data.data, renamed.body.data);
    assert.deepEqual(changes[5]!.data.data, { id: edge.id });
  });

  test('a refused or rolled-back write records nothing; numbers stay without gaps', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const otherBoard = await server.makeBoard(alice);
    const a = await server.makeNode(alice, boardId);
    const foreign = await server.makeNode(alice, otherBoard);
    // Fails inside the transaction, after the board lock: an edge to another board's node.
    const refused = await server.request('POST', `/v1/boards/${boardId}/edges`, {
      token: alice.token,
      body: { source_node_id: a.id, target_node_id: foreign.id },
    });
    assert.equal(refused.status, 400);
    await server.makeNode(alice, boardId);
    const page = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?after=0`, { token: alice.token });
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(
      page.body.data.map((e) => [e.seq, e.type]),
      [
        [1, 'node.created'],
        [2, 'node.created'],
      ],
    );
    assert.equal(page.body.latest_seq, 2);
  });

  test('concurrent writes get distinct, consecutive numbers', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const nodes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => server.makeNode(alice, boardId, { data: { label: `n${i}`, text: '' } })),
    );
    const page = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?limit=100`, { token: alice.token });
    assert.deepEqual(
      page.body.data.map((e) => e.seq),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.deepEqual(new Set(page.body.data.map((e) => e.data.id)), new Set(nodes.map((n) => n.id)));
  });

  test('deleting a node records its edges and detached children', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const parent = await server.makeNode(alice, boardId);
    const child = await server.makeNode(alice, boardId, { parent_node_id: parent.id });
    const other = await server.makeNode(alice, boardId);
    const edge = await server.makeEdge(alice, boardId, other.id, parent.id);
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/nodes/${parent.id}`, { token: alice.token })).status, 200);
    const page = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?after=4`, { token: alice.token });
    assert.deepEqual(
      page.body.data.map((e) => [e.type, e.data.id, e.data.parent_node_id]),
      [
        ['edge.deleted', edge.id, undefined],
        ['node.updated', child.id, null],
        ['node.deleted', parent.id, undefined],
      ],
    );
  });

  test('resumes after Last-Event-ID, and after ?after=', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const nodes = [];
    for (let i = 0; i < 5; i++) nodes.push(await server.makeNode(alice, boardId));
    const resumed = watch(server.url, boardId, alice.token, { lastEventId: '3' });
    await resumed.waitFor((e) => e.id === '5');
    assert.deepEqual(
      resumed.events.map((e) => e.id),
      ['4', '5'],
    );
    const fromQuery = watch(server.url, boardId, alice.token, { after: 4 });
    await fromQuery.waitFor((e) => e.id === '5');
    await server.makeNode(alice, boardId);
    await fromQuery.waitFor((e) => e.id === '6');
    assert.deepEqual(
      fromQuery.events.map((e) => e.id),
      ['5', '6'],
    );
    const bad = await server.request('GET', `/v1/boards/${boardId}/events`, {
      token: alice.token,
      headers: { accept: 'text/event-stream', 'last-event-id': 'abc' },
    });
    assert.ok(isErrorEnvelope(bad.body, 400), bad.text);
  });

  test('a point older than the events kept gets a reset; so does one ahead of the board', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    for (let i = 0; i < 4; i++) await server.makeNode(alice, boardId);
    // As the retention sweep would: events 1 and 2 are gone.
    await server.database.db.deleteFrom('board_events').where('board_id', '=', boardId).where('seq', '<=', 2).execute();
    const stale = watch(server.url, boardId, alice.token, { lastEventId: '1' });
    const reset = await stale.waitFor((e) => e.type === 'reset');
    assert.equal(reset.id, '4');
    assert.equal(reset.data.latest_seq, 4);
    await server.makeNode(alice, boardId);
    await stale.waitFor((e) => e.id === '5');
    // after=2 needs events from 3 on, which are kept.
    const fine = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?after=2`, { token: alice.token });
    assert.equal(fine.body.reset, false);
    assert.deepEqual(
      fine.body.data.map((e) => e.seq),
      [3, 4, 5],
    );
    const old = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?after=1`, { token: alice.token });
    assert.equal(old.body.reset, true);
    assert.deepEqual(old.body.data, []);
    const ahead = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?after=99`, { token: alice.token });
    assert.equal(ahead.body.reset, true);
  });

  test('the list pages with after and limit', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    for (let i = 0; i < 5; i++) await server.makeNode(alice, boardId);
    const first = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?limit=2`, { token: alice.token });
    assert.deepEqual(
      first.body.data.map((e) => e.seq),
      [1, 2],
    );
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.cursor, '2');
    const rest = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events?limit=10&after=${first.body.cursor}`, {
      token: alice.token,
    });
    assert.deepEqual(
      rest.body.data.map((e) => e.seq),
      [3, 4, 5],
    );
    assert.equal(rest.body.has_more, false);
    for (const query of ['limit=0', 'limit=501', 'after=-1', 'after=x']) {
      const bad = await server.request('GET', `/v1/boards/${boardId}/events?${query}`, { token: alice.token });
      assert.ok(isErrorEnvelope(bad.body, 400), `${query}: ${bad.text}`);
    }
  });
});

describe('announcements', () => {
  test('committed changes go out after the commit, coalesced; a long list is split under the payload limit', async () => {
    const heard: string[] = [];
    server.database.notifications.on(BOARD_EVENTS_CHANNEL, (payload) => heard.push(payload));
    const announcer = announcerOf(server.database.db);
    await announcer.flush();
    await new Promise((resolve) => setTimeout(resolve, 50));
    heard.length = 0;

    // Five commits at once: the first goes out at once, the other four in one notification after it.
    const boards = Array.from({ length: 300 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    for (let round = 1; round <= 5; round++) announcer.add(new Map(boards.map((b, i) => [b, round * 1000 + i])));
    const expected = new Map(boards.map((b, i) => [b, 5000 + i]));
    const last = new Map<string, number>();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && [...expected].some(([b, seq]) => last.get(b) !== seq)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      for (const [b, seq] of heard.flatMap(parseAnnouncement)) last.set(b, Math.max(seq, last.get(b) ?? 0));
    }
    assert.deepEqual(last, expected);
    for (const payload of heard) assert.ok(Buffer.byteLength(payload) < 8000, `payload of ${Buffer.byteLength(payload)} bytes`);
    // 300 boards' entries (about 12.6 KB) need two notifications; two sends make four.
    assert.equal(heard.length, 4, `entries per notification: ${heard.map((p) => parseAnnouncement(p).length).join(', ')}`);
    assert.deepEqual(
      heard.flatMap(parseAnnouncement).filter(([, seq]) => seq < 2000).length,
      300,
      'the first send carries the first commit alone',
    );
  });

  test('channels named while the listening connection opens are each heard; no statement waits behind another', async () => {
    // A listener of its own on the wire run's database, as an instance on an external PostgreSQL has;
    // the embedded database listens on its pool instead (the server's, used above).
    const url = server.config.databaseUrl;
    const notifications = url ? clientNotifications(url) : server.database.notifications;
    const channels = ['bwk_test_a', 'bwk_test_b', 'bwk_test_c'];
    const heard = new Set<string>();
    try {
      for (const channel of channels) notifications.on(channel, (payload) => heard.add(`${channel}:${payload}`));
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline && heard.size < channels.length) {
        for (const channel of channels) await sql`SELECT pg_notify(${channel}, 'hello')`.execute(server.database.db);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(
        [...heard].sort(),
        channels.map((c) => `${c}:hello`),
      );
    } finally {
      if (url) await notifications.close();
    }
    assert.deepEqual(queuedQueryWarnings, []);
  });

  test('a write announces its board only when it commits', async () => {
    const heard: string[] = [];
    server.database.notifications.on(BOARD_EVENTS_CHANNEL, (payload) => heard.push(payload));
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const refused = await server.request('POST', `/v1/boards/${boardId}/nodes`, { token: alice.token, body: { type: 'note' } });
    assert.equal(refused.status, 400);
    await server.makeNode(alice, boardId);
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && !heard.some((p) => p.includes(boardId))) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(
      heard.flatMap(parseAnnouncement).filter(([b]) => b === boardId),
      [[boardId, 1]],
    );
  });
});

describe('jobs', () => {
  test("a vectorize job's end is recorded on its board: completed, and failed", async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const stream = watch(server.url, boardId, alice.token);
    await stream.waitFor((e) => e.type === 'ready');
    const node = await server.makeNode(alice, boardId, { data: { text: 'Harbours and engines, a note long enough to chunk.' } });
    const posted = await server.request<{ data: { id: string } }>('POST', `/v1/boards/${boardId}/documents`, {
      token: alice.token,
      body: { text: 'Harbours and engines. Tides and the moon.', node_id: node.id },
    });
    assert.equal(posted.status, 202, posted.text);
    const job = await server.waitForJob(posted.body.data.id, alice.token);
    const done = await stream.waitFor((e) => e.type === 'document.completed');
    assert.deepEqual(done.data.data, { ...JSON.parse(JSON.stringify(job)), node_id: node.id });
    assert.equal(done.data.actor_id, alice.userId);

    // A pdf whose one page has no text: the job fails.
    const blank = await PDFDocument.create();
    blank.addPage([600, 400]);
    const { nodeData } = await uploadFile(server, alice, boardId, Buffer.from(await blank.save()), 'blank.pdf', 'application/pdf');
    const pdf = await server.makeNode(alice, boardId, { type: 'pdf', data: nodeData });
    const failing = await server.request<{ data: { id: string } }>('POST', `/v1/boards/${boardId}/documents`, {
      token: alice.token,
      body: { node_id: pdf.id },
    });
    assert.equal(failing.status, 202, failing.text);
    const failedJob = await server.waitForJob(failing.body.data.id, alice.token);
    const failed = await stream.waitFor((e) => e.type === 'document.failed');
    assert.deepEqual(failed.data.data, { ...JSON.parse(JSON.stringify(failedJob)), node_id: pdf.id });
    assert.equal(failedJob.status, 'failed');
  });
});

describe('who receives what', () => {
  test("others' private boards are not found; a read-only key follows a public board", async () => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await server.makeBoard(alice);
    const hidden = await server.request('GET', `/v1/boards/${boardId}/events`, {
      token: bob.token,
      headers: { accept: 'text/event-stream' },
    });
    assert.ok(isErrorEnvelope(hidden.body, 404), hidden.text);
    const listed = await server.request('GET', `/v1/boards/${boardId}/events`, { token: bob.token });
    assert.ok(isErrorEnvelope(listed.body, 404), listed.text);
    await server.request('PATCH', `/v1/boards/${boardId}`, { token: alice.token, body: { is_public: true } });
    const readOnly = await bob.keyWith(['read']);
    const stream = watch(server.url, boardId, readOnly.raw_key);
    await stream.waitFor((e) => e.type === 'ready');
    const node = await server.makeNode(alice, boardId);
    const seen = await stream.waitFor((e) => e.type === 'node.created');
    assert.equal(seen.data.actor_id, alice.userId);
    assert.equal((seen.data.data as { id: string }).id, node.id);
  });

  test("asset events reach only the owner's streams", async () => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await server.makeBoard(alice, { is_public: true });
    const owners = watch(server.url, boardId, alice.token);
    const viewers = watch(server.url, boardId, bob.token);
    await owners.waitFor((e) => e.type === 'ready');
    await viewers.waitFor((e) => e.type === 'ready');
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const form = new FormData();
    form.append('file', new Blob([png], { type: 'image/png' }), 'dot.png');
    const uploaded = await fetch(`${server.url}/v1/boards/${boardId}/assets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.token}` },
      body: form,
    });
    assert.equal(uploaded.status, 201, await uploaded.clone().text());
    const asset = ((await uploaded.json()) as { data: { id: string } }).data;
    const created = await owners.waitFor((e) => e.type === 'asset.created');
    assert.deepEqual(created.data.data, JSON.parse(JSON.stringify(asset)));
    await server.makeNode(alice, boardId);
    await viewers.waitFor((e) => e.type === 'node.created');
    assert.deepEqual(
      viewers.events.map((e) => e.type),
      ['ready', 'node.created'],
    );
    assert.equal(viewers.events[1]!.id, '2');
    const list = await server.request<EventPage>('GET', `/v1/boards/${boardId}/events`, { token: bob.token });
    assert.deepEqual(
      list.body.data.map((e) => e.type),
      ['node.created'],
    );
  });
});

describe('when a stream ends', () => {
  test('after board.deleted', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const stream = watch(server.url, boardId, alice.token);
    await stream.waitFor((e) => e.type === 'ready');
    await server.makeNode(alice, boardId);
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}`, { token: alice.token })).status, 200);
    const deleted = await stream.waitFor((e) => e.type === 'board.deleted');
    assert.deepEqual(deleted.data.data, { id: boardId });
    assert.equal(deleted.id, '2');
    await stream.ended();
    // Only the last event outlives the board.
    const { rows } = await sql<{ seq: number }>`SELECT seq FROM board_events WHERE board_id = ${boardId}`.execute(server.database.db);
    assert.deepEqual(
      rows.map((r) => Number(r.seq)),
      [2],
    );
  });

  test("when the board is made private: others' streams end, the owner's goes on", async () => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await server.makeBoard(alice, { is_public: true });
    const owners = watch(server.url, boardId, alice.token);
    const others = watch(server.url, boardId, bob.token);
    await others.waitFor((e) => e.type === 'ready');
    await owners.waitFor((e) => e.type === 'ready');
    await server.request('PATCH', `/v1/boards/${boardId}`, { token: alice.token, body: { is_public: false } });
    await others.ended();
    assert.ok(!others.events.some((e) => e.type === 'board.updated'), 'the private board is not shown to others');
    await owners.waitFor((e) => e.type === 'board.updated');
    await server.makeNode(alice, boardId);
    await owners.waitFor((e) => e.type === 'node.created');
  });

  test('when its API key is revoked', async () => {
    const alice = await server.user();
    const boardId = await server.makeBoard(alice);
    const key = await alice.keyWith(['read']);
    const stream = watch(server.url, boardId, key.raw_key);
    await stream.waitFor((e) => e.type === 'ready');
    assert.equal((await server.request('DELETE', `/v1/me/api-keys/${key.id}`, { token: alice.token })).status, 200);
    await stream.ended();
  });
});

describe('limits', () => {
  test('a user holds at most EVENT_STREAMS_PER_USER streams on an instance', async () => {
    const limited = await startServer({ EVENT_STREAMS_PER_USER: '2' });
    try {
      const alice = await limited.user();
      const boardId = await limited.makeBoard(alice);
      const streams = [watch(limited.url, boardId, alice.token), watch(limited.url, boardId, alice.token)];
      await Promise.all(streams.map((s) => s.waitFor((e) => e.type === 'ready')));
      const third = await limited.request('GET', `/v1/boards/${boardId}/events`, {
        token: alice.token,
        headers: { accept: 'text/event-stream' },
      });
      assert.ok(isErrorEnvelope(third.body, 429), third.text);
      streams[0]!.close();
      // The server notices the closed connection shortly.
      let fourth = 429;
      for (let i = 0; i < 50 && fourth === 429; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const s = watch(limited.url, boardId, alice.token);
        try {
          await s.waitFor((e) => e.type === 'ready', 1000);
          fourth = 200;
        } catch {
          fourth = 429;
        }
      }
      assert.equal(fourth, 200);
    } finally {
      for (const stream of open) stream.close();
      await limited.close();
    }
  });
});

describe('aborted streams', () => {
  const limited = useServer({ EVENT_STREAMS_PER_USER: '3' });

  /** Sends a stream's request on a raw socket and drops the connection after `wait` (a promise). */
  const abortAfter = (url: string, boardId: string, token: string, wait: () => Promise<unknown>, query = '') =>
    new Promise<void>((resolve) => {
      const { hostname, port } = new URL(url);
      const socket = net.connect(Number(port), hostname, () => {
        socket.write(
          `GET /v1/boards/${boardId}/events${query} HTTP/1.1\r\nhost: ${hostname}\r\n` +
            `authorization: Bearer ${token}\r\naccept: text/event-stream\r\n\r\n`,
        );
        void wait().then(() => socket.destroy());
      });
      socket.on('error', () => {});
      socket.on('close', () => resolve());
    });

  test('a client that leaves while its stream is starting leaves no slot taken', async () => {
    const alice = await limited.user();
    const boardId = await limited.makeBoard(alice, { is_public: true });
    await limited.makeNode(alice, boardId);
    // Dropped at once, after a turn of the event loop, and after a few milliseconds: some while the
    // stream's start point is being read, some once it is open. Some resume (a second query).
    const waits: (() => Promise<unknown>)[] = [
      () => Promise.resolve(),
      () => new Promise((r) => setImmediate(r)),
      () => new Promise((r) => setTimeout(r, 1)),
      () => new Promise((r) => setTimeout(r, 3)),
      () => new Promise((r) => setTimeout(r, 8)),
      () => new Promise((r) => setTimeout(r, 20)),
    ];
    for (let round = 0; round < 8; round++) {
      await Promise.all(
        waits.map((wait, i) =>
          abortAfter(limited.url, boardId, alice.token, wait, i % 2 ? '?after=0' : `?session_id=tab-${round}-${i}-abcdef`),
        ),
      );
    }
    // Every slot is free again: EVENT_STREAMS_PER_USER streams open (the server may take a moment
    // to notice the last connections closing).
    const held: AbortController[] = [];
    const open = async () => {
      const controller = new AbortController();
      held.push(controller);
      const res = await fetch(new URL(`/v1/boards/${boardId}/events`, limited.url), {
        headers: { authorization: `Bearer ${alice.token}`, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      if (res.status !== 200) controller.abort();
      return res.status;
    };
    let statuses: number[] = [];
    try {
      for (let attempt = 0; attempt < 30; attempt++) {
        for (const controller of held.splice(0)) controller.abort();
        await new Promise((r) => setTimeout(r, 100));
        statuses = [await open(), await open(), await open()];
        if (statuses.every((status) => status === 200)) break;
      }
      assert.deepEqual(statuses, [200, 200, 200]);
    } finally {
      for (const controller of held) controller.abort();
    }
  });
});

describe('streams opened at once', () => {
  const limited = useServer({ EVENT_STREAMS_PER_USER: '3' });

  test('never hold more than EVENT_STREAMS_PER_USER between them', async () => {
    const alice = await limited.user();
    const boardId = await limited.makeBoard(alice);
    const controllers = Array.from({ length: 12 }, () => new AbortController());
    try {
      const statuses = await Promise.all(
        controllers.map(async (controller) => {
          const res = await fetch(new URL(`/v1/boards/${boardId}/events`, limited.url), {
            headers: { authorization: `Bearer ${alice.token}`, accept: 'text/event-stream' },
            signal: controller.signal,
          });
          if (res.status !== 200) await res.body?.cancel();
          return res.status;
        }),
      );
      assert.equal(statuses.filter((status) => status === 200).length, 3, statuses.join(' '));
      assert.equal(statuses.filter((status) => status === 429).length, 9, statuses.join(' '));
    } finally {
      for (const controller of controllers) controller.abort();
    }
  });
});

describe('presence', () => {
  test('announced to the board’s other streams, remembered for new ones, gone when the stream closes', async () => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await server.makeBoard(alice, { is_public: true });
    const bobs = watch(server.url, boardId, bob.token);
    await bobs.waitFor((e) => e.type === 'ready');
    // Alice's tab: a stream that carries her session, and her announcements.
    const session = 'alice-tab-1';
    const withSession = new URL(`/v1/boards/${boardId}/events?session_id=${session}`, server.url);
    const controller = new AbortController();
    const held = await fetch(withSession, {
      headers: { authorization: `Bearer ${alice.token}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    assert.equal(held.status, 200);
    const selected = await server.makeNode(alice, boardId);
    const announced = await server.request<{ data: Record<string, unknown> }>('PUT', `/v1/boards/${boardId}/presence`, {
      token: alice.token,
      body: { session_id: session, cursor: { x: 10, y: -5 }, selection: [selected.id] },
    });
    assert.equal(announced.status, 200, announced.text);
    const seen = await bobs.waitFor((e) => e.type === 'presence');
    assert.deepEqual(seen.data, announced.body.data);
    assert.equal(seen.data.user_id, alice.userId);
    assert.match(String(seen.data.color), /^#[0-9a-f]{6}$/);
    assert.match(String(seen.data.initial), /^[A-Z0-9?]$/);
    assert.deepEqual(seen.data.cursor, { x: 10, y: -5 });
    assert.equal(seen.data.left, false);

    assert.deepEqual(seen.data.dragging, []);

    // A drag as it happens: the dragged nodes' positions reach the others in the presence event.
    const drag = await server.request<{ data: Record<string, unknown> }>('PUT', `/v1/boards/${boardId}/presence`, {
      token: alice.token,
      body: { session_id: session, cursor: { x: 12, y: -4 }, selection: [selected.id], dragging: [{ node_id: selected.id, x: 40, y: -7 }] },
    });
    assert.equal(drag.status, 200, drag.text);
    const dragSeen = await bobs.waitFor((e) => e.type === 'presence' && (e.data.dragging as unknown[]).length > 0);
    assert.deepEqual(dragSeen.data, drag.body.data);
    assert.deepEqual(dragSeen.data.dragging, [{ node_id: selected.id, x: 40, y: -7 }]);

    // The most a selection and a drag may hold, at the bounds' farthest coordinates, still goes through.
    const many = Array.from({ length: 100 }, () => crypto.randomUUID());
    const widest = many.map((node_id, i) => ({ node_id, x: i % 2 ? -1e12 : 1e12, y: -1e12 }));
    const full = await server.request<{ data: Record<string, unknown> }>('PUT', `/v1/boards/${boardId}/presence`, {
      token: alice.token,
      body: { session_id: session, cursor: { x: -1e12, y: -1e12 }, selection: many, dragging: widest },
    });
    assert.equal(full.status, 200, full.text);
    const fullSeen = await bobs.waitFor((e) => e.type === 'presence' && (e.data.dragging as unknown[]).length === 100);
    assert.deepEqual(fullSeen.data, full.body.data);

    // A stream opened later starts with who is there.
    const late = watch(server.url, boardId, bob.token);
    const snapshot = await late.waitFor((e) => e.type === 'presence');
    assert.equal(snapshot.data.session_id, session);

    // Closing the tab's stream: the session leaves.
    controller.abort();
    const left = await bobs.waitFor((e) => e.type === 'presence' && e.data.left === true);
    assert.equal(left.data.session_id, session);
  });

  test("a session is its user's: another user can neither announce it nor end it", async () => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await server.makeBoard(alice, { is_public: true });
    const watcher = watch(server.url, boardId, alice.token);
    await watcher.waitFor((e) => e.type === 'ready');
    const session = 'alice-tab-spoofed';
    const put = (token: string, body: Record<string, unknown>) =>
      server.request('PUT', `/v1/boards/${boardId}/presence`, { token, body: { session_id: session, ...body } });
    assert.equal((await put(alice.token, { cursor: { x: 1, y: 1 } })).status, 200);
    await watcher.waitFor((e) => e.type === 'presence' && e.data.session_id === session);

    // Bob read her session id from the event; neither of his credentials may use it.
    const bobsKey = await bob.keyWith(['read']);
    for (const token of [bob.token, bobsKey.raw_key, await bob.jwt()]) {
      const spoofed = await put(token, { cursor: { x: 666, y: 666 } });
      assert.ok(isErrorEnvelope(spoofed.body, 403), spoofed.text);
      const ended = await server.request('DELETE', `/v1/boards/${boardId}/presence/${session}`, { token });
      assert.ok(isErrorEnvelope(ended.body, 403), ended.text);
    }
    // A stream Bob opens naming her session does not end it when he closes it.
    const bobsStream = await fetch(new URL(`/v1/boards/${boardId}/events?session_id=${session}`, server.url), {
      headers: { authorization: `Bearer ${bob.token}`, accept: 'text/event-stream' },
    });
    assert.equal(bobsStream.status, 200);
    await bobsStream.body?.cancel();

    // Alice, on another of her keys, is the same person: her session is hers there too.
    const alicesKey = await alice.keyWith(['read']);
    assert.equal((await put(alicesKey.raw_key, { cursor: { x: 2, y: 2 } })).status, 200);
    await watcher.waitFor((e) => e.type === 'presence' && (e.data.cursor as { x: number } | null)?.x === 2);
    const mine = watcher.events.filter((e) => e.type === 'presence' && e.data.session_id === session);
    assert.ok(
      mine.every((e) => e.data.user_id === alice.userId && e.data.left === false),
      JSON.stringify(mine.map((e) => e.data)),
    );
    // Once she has left, the session is gone and nobody's: her leaving is heard, a repeat is harmless.
    assert.equal((await server.request('DELETE', `/v1/boards/${boardId}/presence/${session}`, { token: alice.token })).status, 200);
    await watcher.waitFor((e) => e.type === 'presence' && e.data.session_id === session && e.data.left === true);
  });

  test('leaving explicitly; private boards and bad input refused', async () => {
    const alice = await server.user();
    const bob = await server.user();
    const boardId = await server.makeBoard(alice, { is_public: true });
    const alices = watch(server.url, boardId, alice.token);
    await alices.waitFor((e) => e.type === 'ready');
    const readOnly = await bob.keyWith(['read']);
    const put = await server.request('PUT', `/v1/boards/${boardId}/presence`, {
      token: readOnly.raw_key,
      body: { session_id: 'bob-tab-0001' },
    });
    assert.equal(put.status, 200, put.text);
    await alices.waitFor((e) => e.type === 'presence' && e.data.left === false);
    const gone = await server.request('DELETE', `/v1/boards/${boardId}/presence/bob-tab-0001`, { token: readOnly.raw_key });
    assert.equal(gone.status, 200, gone.text);
    await alices.waitFor((e) => e.type === 'presence' && e.data.left === true);

    const privateBoard = await server.makeBoard(alice);
    const hidden = await server.request('PUT', `/v1/boards/${privateBoard}/presence`, {
      token: bob.token,
      body: { session_id: 'bob-tab-0001' },
    });
    assert.ok(isErrorEnvelope(hidden.body, 404), hidden.text);
    for (const body of [
      { session_id: 'short' },
      { session_id: 'bad id with spaces' },
      { session_id: 'bob-tab-0001', selection: Array.from({ length: 101 }, () => boardId) },
      { session_id: 'bob-tab-0001', cursor: { x: 'a', y: 1 } },
      { session_id: 'bob-tab-0001', extra: true },
      // A drag: more nodes than a selection holds, a node not selected, a coordinate out of bounds or
      // not whole, an unknown key.
      {
        session_id: 'bob-tab-0001',
        selection: [boardId],
        dragging: Array.from({ length: 101 }, () => ({ node_id: boardId, x: 0, y: 0 })),
      },
      { session_id: 'bob-tab-0001', selection: [], dragging: [{ node_id: boardId, x: 0, y: 0 }] },
      { session_id: 'bob-tab-0001', selection: [boardId], dragging: [{ node_id: boardId, x: 2e12, y: 0 }] },
      { session_id: 'bob-tab-0001', selection: [boardId], dragging: [{ node_id: boardId, x: 1.5, y: 0 }] },
      { session_id: 'bob-tab-0001', selection: [boardId], dragging: [{ node_id: boardId, x: 1, y: 0, z: 0 }] },
      { session_id: 'bob-tab-0001', selection: [boardId], dragging: [{ node_id: 'not-a-node', x: 1, y: 0 }] },
    ]) {
      const bad = await server.request('PUT', `/v1/boards/${boardId}/presence`, { token: bob.token, body });
      assert.ok(isErrorEnvelope(bad.body, 400), `${JSON.stringify(body).slice(0, 80)}: ${bad.text}`);
    }
  });
});
