// Reading what a node points at (POST …/documents with a node_id and no text): a url node's page,
// fetched from a page server on loopback here (articles, redirects, a redirect to an address that
// is not allowed, a page over 5 MB, a slow page, an image, a 403); a video's WebVTT or SubRip
// transcript; a document node's uploaded .docx (made here with the docx package), .md or .html; an
// image's words; a note's text. Every chunk's char_start/char_end locate its passage in the read text.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import { ConfigError, loadConfig } from '../src/config.js';
import { readHtml } from '../src/documents/reading/page-text.js';
import { postParts, uploadFile } from './helpers/assets.js';
import type { DocumentList, JobBody, Node, NodeBody, SearchBody } from './helpers/api-types.js';
import { type TestUser, isErrorEnvelope, useServer } from './helpers/harness.js';

const TIMEOUT_MS = 1500;
const server = useServer({
  JOB_POLL_MS: '50',
  OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
  READ_PAGE_TIMEOUT_MS: String(TIMEOUT_MS),
  CHUNK_SIZE: '200',
  CHUNK_OVERLAP: '40',
});
let user: TestUser;

const paragraphs = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `Paragraph ${i} of the ${topic} article explains one more fact about ${topic}, clearly and at length.`,
  );

const article = (title: string, body: string[]) => `<!doctype html>
<html><head><title>${title} | Site</title>
<meta property="og:title" content="${title}">
<meta property="og:description" content="All about ${title.toLowerCase()}.">
<meta property="og:site_name" content="Loopback News">
<meta property="og:image" content="/images/${title.toLowerCase()}.png">
</head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>${title}</h1>
${body.map((p) => `<p>${p}</p>`).join('\n')}
<script>document.write('never read')</script>
</article>
<footer>Copyright footer</footer>
</body></html>`;

/** What the page server answers at /changing: the test changes it between reads. */
let changing = article('Tides', paragraphs('tides', 6));
const userAgents: string[] = [];
let pages: http.Server;
let base = '';

before(async () => {
  user = await server.user();
  pages = http.createServer((req, res) => {
    userAgents.push(req.headers['user-agent'] ?? '');
    const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
    const path = req.url ?? '/';
    if (path === '/article') return html(article('Volcanoes', paragraphs('volcano', 8)));
    if (path === '/changing') return html(changing);
    if (path === '/redirect') return res.writeHead(302, { location: '/redirect-2' }).end();
    if (path === '/redirect-2') return res.writeHead(301, { location: `${base}/article` }).end();
    if (path.startsWith('/loop/')) return res.writeHead(302, { location: `/loop/${Number(path.slice(6)) + 1}` }).end();
    // localhost is not in OUTBOUND_ALLOWED_HOSTS (127.0.0.1 is), so this redirect leads where the service may not go.
    if (path === '/to-disallowed')
      return res.writeHead(302, { location: `http://localhost:${(pages.address() as AddressInfo).port}/article` }).end();
    if (path === '/big') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body><p>');
      res.end('big '.repeat((5 * 1024 * 1024) / 4 + 10));
      return;
    }
    if (path === '/slow') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><body><p>Slow');
      const timer = setTimeout(() => res.end(' page.</p></body></html>'), TIMEOUT_MS * 4);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/image') return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(64));
    if (path === '/forbidden') return res.writeHead(403, { 'content-type': 'text/html' }).end('<p>No</p>');
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
});
after(() => {
  pages.closeAllConnections();
  pages.close();
});

async function vectorize(board: string, body: Record<string, unknown>) {
  const res = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, { token: user.token, body });
  assert.equal(res.status, 202, res.text);
  return server.waitForJob(res.body.data.id, user.token, 30_000);
}

async function chunksOf(board: string, nodeId: string) {
  const list = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents?node_id=${nodeId}&order=asc&limit=100`, {
    token: user.token,
  });
  assert.equal(list.status, 200, list.text);
  return list.body.data;
}

async function getNode(board: string, nodeId: string): Promise<Node> {
  const res = await server.request<NodeBody>('GET', `/v1/boards/${board}/nodes/${nodeId}`, { token: user.token });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

/** Each chunk's content is its passage of `text` (char_start..char_end) with whitespace collapsed. */
function assertPassages(text: string, chunks: DocumentList['data']) {
  assert.ok(chunks.length > 0);
  for (const c of chunks) {
    const { char_start, char_end } = c.metadata;
    assert.ok(typeof char_start === 'number' && typeof char_end === 'number', JSON.stringify(c.metadata));
    assert.equal(text.slice(char_start, char_end).replace(/\s+/g, ' '), c.content.replace(/\s+/g, ' '));
  }
}

async function urlNode(board: string, path: string) {
  return server.makeNode(user, board, { type: 'url', data: { url: `${base}${path}` } });
}

describe('url nodes', () => {
  test("reading a url node chunks the page's readable text and writes its preview into the node", async () => {
    const board = await server.makeBoard(user);
    const node = await urlNode(board, '/article');
    const job = await vectorize(board, { node_id: node.id });
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const chunks = await chunksOf(board, node.id);
    const all = chunks.map((c) => c.content).join(' ');
    assert.match(all, /Paragraph 7 of the volcano article/);
    assert.doesNotMatch(all, /never read|Copyright footer|About/);
    assert.ok(chunks.every((c) => c.metadata.sourceType === 'url'));
    const read = await getNode(board, node.id);
    assert.equal(read.node_data.title, 'Volcanoes');
    assert.equal(read.node_data.description, 'All about volcanoes.');
    assert.equal(read.node_data.site_name, 'Loopback News');
    assert.equal(read.node_data.image_url, `${base}/images/volcanoes.png`);
    assert.ok(!Number.isNaN(Date.parse(String(read.node_data.read_at))));
    assert.equal(read.node_data.url, `${base}/article`);
    assert.notEqual(read.updated_at, node.updated_at);
    assert.ok(userAgents.every((ua) => ua.startsWith('board-workspace-reader/')));
    // The passages: the page's text as read (the same extraction, run here) holds each chunk where its offsets say.
    assertPassages((await readHtml(article('Volcanoes', paragraphs('volcano', 8)), `${base}/article`)).text, chunks);
    const hit = await server.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, {
      token: user.token,
      body: { query: 'Paragraph 5 of the volcano article', limit: 1, mode: 'keyword' },
    });
    assert.equal(hit.body.data[0]?.node_id, node.id);
    assert.equal(typeof hit.body.data[0]?.metadata.char_start, 'number');
  });

  test('redirects are followed (relative and absolute)', async () => {
    const board = await server.makeBoard(user);
    const node = await urlNode(board, '/redirect');
    const job = await vectorize(board, { node_id: node.id });
    assert.equal(job.status, 'completed', JSON.stringify(job));
    assert.equal((await getNode(board, node.id)).node_data.title, 'Volcanoes');
  });

  const failures: [string, string, RegExp][] = [
    ['a redirect to an address not allowed', '/to-disallowed', /^This address is not allowed \(.*localhost.*\)$/],
    ['more than 5 redirects', '/loop/0', /^The page redirected more than 5 times$/],
    ['a page over 5 MB', '/big', /^The page is larger than 5 MB$/],
    ['a page slower than the limit', '/slow', /^The page took longer than 1\.5 s$/],
    ['an image', '/image', /^The address is not a web page \(image\/png\)$/],
    ['a 403', '/forbidden', /^The page answered 403$/],
  ];
  for (const [what, path, error] of failures) {
    test(`${what} fails the job in plain words and changes nothing`, async () => {
      const board = await server.makeBoard(user);
      const node = await urlNode(board, path);
      const job = await vectorize(board, { node_id: node.id });
      assert.equal(job.status, 'failed');
      assert.match(job.error ?? '', error);
      assert.deepEqual(await chunksOf(board, node.id), []);
      assert.deepEqual((await getNode(board, node.id)).node_data, node.node_data);
    });
  }

  test('private addresses are refused without being fetched', async () => {
    const board = await server.makeBoard(user);
    for (const url of ['http://10.0.0.1/page', 'https://169.254.169.254/latest/meta-data']) {
      const node = await server.makeNode(user, board, { type: 'url', data: { url } });
      const job = await vectorize(board, { node_id: node.id });
      assert.equal(job.status, 'failed');
      assert.match(job.error ?? '', /^This address is not allowed/);
    }
  });

  test("reading again replaces the node's chunks and preview with the changed page's", async () => {
    const board = await server.makeBoard(user);
    changing = article('Tides', paragraphs('tides', 6));
    const node = await urlNode(board, '/changing');
    assert.equal((await vectorize(board, { node_id: node.id })).status, 'completed');
    const first = await chunksOf(board, node.id);
    assert.match(first.map((c) => c.content).join(' '), /tides article/);
    changing = article('Glaciers', paragraphs('glacier', 3));
    assert.equal((await vectorize(board, { node_id: node.id })).status, 'completed');
    const second = await chunksOf(board, node.id);
    const text = second.map((c) => c.content).join(' ');
    assert.match(text, /glacier article/);
    assert.doesNotMatch(text, /tides/);
    assert.ok(second.every((c) => !first.some((f) => f.id === c.id)));
    assert.equal((await getNode(board, node.id)).node_data.title, 'Glaciers');
  });
});

const VTT = `WEBVTT

NOTE made for the test

intro
00:00:01.000 --> 00:00:04.000
<v Ana>Welcome to the lesson about <b>coral reefs</b>.

00:00:04.500 --> 00:00:09.000
Coral reefs grow slowly, a few millimetres a year.

00:01:05.250 --> 00:01:10.000
Bleaching happens when the water is too warm &amp; the algae leave.

00:01:10.000 --> 00:01:15.500
Reefs shelter a quarter of all marine species.
`;

const SRT = `1\r
00:00:02,000 --> 00:00:05,000\r
Deserts cover a fifth of the land.\r
\r
2\r
00:00:06,000 --> 00:00:09,500\r
<i>Cacti store water</i> in their stems.\r
\r
3\r
00:02:00,000 --> 00:02:04,000\r
Dunes move with the wind, a few metres a year.\r
`;

describe('video transcripts', () => {
  for (const [format, file, name, cues] of [
    ['WebVTT', VTT, 'lesson.vtt', [1, 4.5, 65.25, 70]],
    ['SubRip', SRT, 'deserts.srt', [2, 6, 120]],
  ] as const) {
    test(`a ${format} transcript gives chunks with their start and end seconds`, async () => {
      const board = await server.makeBoard(user);
      const { asset } = await uploadFile(server, user, board, Buffer.from(file), name, undefined);
      assert.equal(asset.content_type, format === 'WebVTT' ? 'text/vtt' : 'application/x-subrip');
      const node = await server.makeNode(user, board, { type: 'video', data: { url: 'https://video.example/watch?v=1' } });
      const job = await vectorize(board, { node_id: node.id, transcript_asset_id: asset.id });
      assert.equal(job.status, 'completed', JSON.stringify(job));
      const chunks = await chunksOf(board, node.id);
      const all = chunks.map((c) => c.content).join(' ');
      assert.doesNotMatch(all, /<|&amp;|NOTE|intro|-->/);
      for (const c of chunks) {
        const { start_seconds, end_seconds } = c.metadata;
        assert.ok(typeof start_seconds === 'number' && typeof end_seconds === 'number' && end_seconds > start_seconds);
        assert.ok((cues as readonly number[]).includes(start_seconds), `${start_seconds} starts a cue`);
      }
      assert.equal(chunks[0]!.metadata.start_seconds, cues[0]);
      assert.ok((await getNode(board, node.id)).node_data.read_at);
    });
  }

  test('each chunk carries the time of the cue it starts in', async () => {
    const board = await server.makeBoard(user);
    const { asset } = await uploadFile(server, user, board, Buffer.from(VTT), 'lesson.vtt', 'text/vtt');
    const node = await server.makeNode(user, board, { type: 'video', data: { url: 'https://video.example/watch?v=2' } });
    assert.equal((await vectorize(board, { node_id: node.id, transcript_asset_id: asset.id })).status, 'completed');
    const cues: [number, number, string][] = [
      [1, 4, 'Welcome to the lesson about coral reefs.'],
      [4.5, 9, 'Coral reefs grow slowly, a few millimetres a year.'],
      [65.25, 70, 'Bleaching happens when the water is too warm & the algae leave.'],
      [70, 75.5, 'Reefs shelter a quarter of all marine species.'],
    ];
    const chunks = await chunksOf(board, node.id);
    assert.ok(chunks.length > 1);
    assertPassages(cues.map((c) => c[2]).join('\n'), chunks);
    for (const c of chunks) {
      const first = cues.find(([, , text]) => text.includes(c.content.slice(0, 20)))!;
      const last = [...cues].reverse().find(([, , text]) => text.includes(c.content.slice(-20)))!;
      assert.deepEqual([c.metadata.start_seconds, c.metadata.end_seconds], [first[0], last[1]], c.content);
    }
  });

  test('a video read without a transcript, or with an asset that is not one, is refused (400)', async () => {
    const board = await server.makeBoard(user);
    const node = await server.makeNode(user, board, { type: 'video', data: { url: 'https://video.example/watch?v=3' } });
    const none = await server.request('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { node_id: node.id } });
    assert.ok(isErrorEnvelope(none.body, 400), none.text);
    const { asset } = await uploadFile(server, user, board, Buffer.from('# Notes\n\nNot a transcript.'), 'notes.md', undefined);
    const wrong = await server.request('POST', `/v1/boards/${board}/documents`, {
      token: user.token,
      body: { node_id: node.id, transcript_asset_id: asset.id },
    });
    assert.ok(isErrorEnvelope(wrong.body, 400), wrong.text);
  });
});

async function docx(paragraphTexts: string[]): Promise<Buffer> {
  const doc = new Document({ sections: [{ children: paragraphTexts.map((t) => new Paragraph({ children: [new TextRun(t)] })) }] });
  return Packer.toBuffer(doc);
}

async function documentFromFile(board: string, bytes: Buffer, name: string, type: string | undefined) {
  const { asset, nodeData } = await uploadFile(server, user, board, bytes, name, type);
  const node = await server.makeNode(user, board, { type: 'document', data: { ...nodeData, label: name } });
  return { asset, node };
}

describe('document uploads', () => {
  test('a .docx made here becomes a document whose text is read into data.text and chunked with offsets', async () => {
    const board = await server.makeBoard(user);
    const texts = paragraphs('wetland', 5);
    const { asset, node } = await documentFromFile(board, await docx(texts), 'Wetlands.docx', undefined);
    assert.equal(asset.content_type, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document');
    assert.equal(node.node_data.text, undefined);
    const job = await vectorize(board, { node_id: node.id });
    assert.equal(job.status, 'completed', JSON.stringify(job));
    const read = await getNode(board, node.id);
    const text = String(read.node_data.text);
    for (const t of texts) assert.ok(text.includes(t), text);
    assert.ok(read.node_data.read_at);
    assertPassages(text, await chunksOf(board, node.id));
  });

  for (const [name, body, expected] of [
    ['notes.md', '# Rivers\n\nRivers carve valleys over *millions* of years.\n\n- deltas\n- meanders\n', /Rivers carve valleys/],
    ['plain.txt', 'Mountains rise where plates collide.\n', /Mountains rise/],
    [
      'page.html',
      '<!doctype html><html><head><title>Caves</title></head><body><p>Caves form where water dissolves limestone.</p><script>x()</script></body></html>',
      /^Caves form where water dissolves limestone\.$/,
    ],
  ] as const) {
    test(`an uploaded ${name} is read into its document node`, async () => {
      const board = await server.makeBoard(user);
      const { node } = await documentFromFile(board, Buffer.from(body), name, undefined);
      assert.equal((await vectorize(board, { node_id: node.id })).status, 'completed');
      const text = String((await getNode(board, node.id)).node_data.text);
      assert.match(text, expected);
      assertPassages(text, await chunksOf(board, node.id));
    });
  }

  test('a document node names a document asset of its board, or has text (400 otherwise)', async () => {
    const board = await server.makeBoard(user);
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
    const { nodeData } = await uploadFile(server, user, board, png, 'pixel.png', 'image/png');
    for (const data of [nodeData, { label: 'no text, no file' }, { storagePath: 'x/y/z.md', publicUrl: 'http://a/b', fileSize: 1 }]) {
      const res = await server.request('POST', `/v1/boards/${board}/nodes`, {
        token: user.token,
        body: { type: 'document', position: { x: 0, y: 0 }, data },
      });
      assert.ok(isErrorEnvelope(res.body, 400), res.text);
    }
  });

  test('text files are judged by their bytes: a binary .txt, an .srt without cues and an .html without markup are refused (415)', async () => {
    const board = await server.makeBoard(user);
    for (const [filename, data] of [
      ['binary.txt', Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x00])],
      ['cues.srt', Buffer.from('just words, no cues')],
      ['page.html', Buffer.from('plain words, no markup')],
      ['notes.md', Buffer.from([0xc3, 0x28, 0x41])],
    ] as const) {
      const res = await postParts(server, user.token, board, [{ filename, data }]);
      assert.ok(isErrorEnvelope(res.body, 415), `${filename}: ${res.text}`);
    }
  });
});

describe('images and notes', () => {
  test('an image is read from its words; one without any is refused (400)', async () => {
    const board = await server.makeBoard(user);
    const { nodeData } = await uploadFile(
      server,
      user,
      board,
      Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64'),
      'pixel.png',
      'image/png',
    );
    const named = await server.makeNode(user, board, {
      type: 'image',
      data: { ...nodeData, label: 'Map of the harbour', description: 'Ferry routes in red' },
    });
    assert.equal((await vectorize(board, { node_id: named.id })).status, 'completed');
    const chunks = await chunksOf(board, named.id);
    assert.deepEqual(
      chunks.map((c) => c.content),
      ['Map of the harbour\n\nFerry routes in red'],
    );
    const bare = await server.makeNode(user, board, { type: 'image', data: nodeData });
    const res = await server.request('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { node_id: bare.id } });
    assert.ok(isErrorEnvelope(res.body, 400), res.text);
  });

  test('a note is read from its text; chunks locate their passage in it and nothing is written on the note', async () => {
    const board = await server.makeBoard(user);
    const text = `${paragraphs('forest', 4).join('\n\n')}\n\n   Last   line,  spaced   oddly.  `;
    const node = await server.makeNode(user, board, { type: 'note', data: { text } });
    assert.equal((await vectorize(board, { node_id: node.id })).status, 'completed');
    assertPassages(text, await chunksOf(board, node.id));
    assert.deepEqual((await getNode(board, node.id)).updated_at, node.updated_at);
  });
});

test('OUTBOUND_ALLOWED_HOSTS and its alias WEBHOOK_ALLOWED_HOSTS are one list, for pages and webhooks alike', () => {
  const both = loadConfig({ OUTBOUND_ALLOWED_HOSTS: 'Intranet.local, 10.0.0.5', WEBHOOK_ALLOWED_HOSTS: '[::1],10.0.0.5' });
  assert.deepEqual(both.reading.allowedHosts, ['intranet.local', '10.0.0.5', '::1']);
  assert.deepEqual(both.webhooks.allowedHosts, both.reading.allowedHosts);
  assert.deepEqual(loadConfig({ WEBHOOK_ALLOWED_HOSTS: 'hooks.local' }).reading.allowedHosts, ['hooks.local']);
  assert.deepEqual(loadConfig({}).reading, { allowedHosts: [], timeoutMs: 15_000 });
  assert.throws(() => loadConfig({ OUTBOUND_ALLOWED_HOSTS: 'a b' }), ConfigError);
  assert.throws(() => loadConfig({ READ_PAGE_TIMEOUT_MS: '5' }), ConfigError);
});
