// End to end (Chromium): issue 29's automatic reading in the web app. A note typed is found by
// search with no click, and read again after an edit; with the board's "Read automatically" off a
// typed note is not read (its card says so and offers Read); an uploaded .md file becomes a
// document that is read and found; a link's page is read and its card shows the page's preview; a
// video given a .vtt transcript on its card is read from it. The last three need the service's
// reading of files, pages and transcripts (issue 29's service part, engineer h3): the page server
// is on loopback, reached through OUTBOUND_ALLOWED_HOSTS. A failed read and Read again are in
// jobs.test.ts.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { allSaved, eventually, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;
let pages: http.Server;
let pagesUrl: string;

const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

const ARTICLE = `<!doctype html>
<html lang="en"><head>
  <title>Octopus dens | Reef Notes</title>
  <meta property="og:title" content="How octopuses choose their dens">
  <meta property="og:description" content="Octopuses pick crevices near food and stack shells at the door.">
  <meta property="og:site_name" content="Reef Notes">
  <meta property="og:image" content="https://images.reef.example/den.png">
</head><body>
  <header><nav>Home · About</nav></header>
  <article>
    <h1>How octopuses choose their dens</h1>
    <p>An octopus chooses a den close to crabs and clams, often a crevice barely wider than its beak.</p>
    <p>Divers find middens of empty shells piled at the entrance, which tell what the octopus has eaten.</p>
    <p>Some octopuses carry coconut shells and assemble a portable shelter when the sand offers none.</p>
  </article>
</body></html>`;

before(async () => {
  pages = http.createServer((request, response) => {
    if (request.url === '/octopus') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(ARTICLE);
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain' });
    response.end('not here');
  });
  await new Promise<void>((resolve) => pages.listen(0, '127.0.0.1', resolve));
  pagesUrl = `http://127.0.0.1:${(pages.address() as AddressInfo).port}`;
  server = await startWebServer({ JOB_POLL_MS: '50', OUTBOUND_ALLOWED_HOSTS: '127.0.0.1,localhost' });
});

after(async () => {
  await server?.close();
  await new Promise((resolve) => pages?.close(resolve));
});

/** The result buttons for `query`, once the search has answered. */
async function search(page: Page, query: string) {
  const box = page.getByRole('searchbox', { name: 'Search this board' });
  await box.fill(query);
  await box.press('Enter');
  const results = page.getByRole('region', { name: 'Search results' });
  await results.waitFor();
  await eventually('the search to answer', async () => !(await results.getByText('Searching…').count()) || undefined);
  return results.getByRole('button');
}

/** The vectorize requests the browser sends (its service worker's too), by the node they name where known. */
function watchReads(context: BrowserContext): string[] {
  const nodes: string[] = [];
  context.on('request', (request) => {
    if (request.method() !== 'POST' || !/\/v1\/boards\/[^/]+\/documents$/.test(new URL(request.url()).pathname)) return;
    // A request the service worker forwards comes without its body here.
    const body = request.postDataJSON() as { node_id?: string } | null;
    nodes.push(body?.node_id ?? 'a node');
  });
  return nodes;
}

test('a note typed is read with no click: found by search, read again after an edit, the card saying when', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Tide notes');
  try {
    await page.getByRole('button', { name: 'Add note' }).click();
    await page.keyboard.type('Anemones eat plankton and small fish that drift into their tentacles.');
    const id = await eventually('the note saved', async () => (await api('GET', `/v1/boards/${boardId}/nodes`)).data[0]?.id as string);
    const card = page.getByTestId(`node-${id}`);
    // Read once the typing stops: the card says it is searchable, and when it was read.
    await card.getByText('Searchable · 1 passage').waitFor({ timeout: 30_000 });
    await card.getByText('read just now').waitFor();
    const hits = await search(page, 'what do anemones eat');
    await hits.filter({ hasText: 'Anemones eat plankton' }).first().waitFor();
    // The hit is named as the card is, by the note's first line (the note has no title).
    assert.match(await hits.first().locator('.bw-hit__source').innerText(), /^Anemones eat plankton/);
    await page.keyboard.press('Escape');

    // An edit is read again once the typing settles: the new words are found.
    const text = card.getByRole('textbox', { name: 'Note text' });
    await text.fill('Hermit crabs trade shells when they outgrow them.');
    await allSaved(page);
    await eventually(
      'the new words to be found',
      async () => (await (await search(page, 'hermit crabs shells')).filter({ hasText: 'Hermit crabs' }).count()) > 0,
      30_000,
    );
    const chunks = (await api('GET', `/v1/boards/${boardId}/documents?node_id=${id}`)).data;
    assert.equal(chunks.length, 1);
    assert.match(chunks[0].content, /Hermit crabs/);
    // No "Make searchable" step is left in the card's menu.
    await card.getByRole('button', { name: /^Menu of / }).click();
    assert.equal(await page.getByRole('menuitem', { name: /searchable/i }).count(), 0);
  } finally {
    await close();
  }
});

test('with "Read automatically" off a typed note is not read: the card says so and Read reads it', async () => {
  const { page, context, api, boardId, close } = await openNewBoard(server, 'Quiet board');
  const reads = watchReads(context);
  try {
    // The owner turns it off in the header's More menu; the board says so.
    await page.getByRole('button', { name: 'More' }).click();
    await page.getByRole('checkbox', { name: 'Read automatically' }).uncheck();
    await eventually('the setting saved', async () => (await api('GET', `/v1/boards/${boardId}`)).data.auto_read === false);
    await page.keyboard.press('Escape');
    await page.getByRole('checkbox', { name: 'Read automatically' }).waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Add note' }).click();
    await page.keyboard.type('Kelp forests grow half a metre a day.');
    await allSaved(page);
    const id = (await api('GET', `/v1/boards/${boardId}/nodes`)).data[0].id as string;
    const card = page.getByTestId(`node-${id}`);
    // With it on, typing puts the card at once in "Read when the typing stops"; off, it is not read.
    await card.getByText('Not read (automatic reading is off)').waitFor();
    assert.equal(await card.getByText('Read when the typing stops').count(), 0);

    // A reload drops anything this page could still have had in mind: nothing was read.
    await page.reload();
    await page.getByRole('heading', { name: 'Quiet board', level: 1 }).waitFor();
    await card.getByText('Not read (automatic reading is off)').waitFor();
    assert.deepEqual(reads, []);
    assert.equal((await api('GET', `/v1/boards/${boardId}/documents/nodes`)).data.length, 0);

    // Read on the card still reads it.
    await card.getByRole('button', { name: 'Read', exact: true }).click();
    await card.getByText('Searchable · 1 passage').waitFor({ timeout: 30_000 });
    assert.equal(reads.length, 1);
  } finally {
    await close();
  }
});

// Needs the service's reading of uploaded documents (issue 29, engineer h3): run after merging.
test('an uploaded .md file becomes a document that is read by itself and found by search', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Field guide');
  try {
    const markdown = '# Sea stars\n\nA sea star eats a mussel by pushing its stomach between the shells.\n';
    await page
      .getByLabel('Upload image, PDF or document')
      .setInputFiles({ name: 'sea-stars.md', mimeType: 'text/markdown', buffer: Buffer.from(markdown) });
    const node = await eventually('the document node', async () => (await api('GET', `/v1/boards/${boardId}/nodes?type=document`)).data[0]);
    assert.equal(node.node_data.label, 'sea-stars.md');
    assert.equal(typeof node.node_data.storagePath, 'string');
    assert.equal(typeof node.node_data.publicUrl, 'string');
    assert.equal(node.node_data.fileSize, Buffer.byteLength(markdown));
    const card = page.getByTestId(`node-${node.id}`);
    await card.getByText(/Searchable · \d+ passages?/).waitFor({ timeout: 30_000 });
    // The service wrote the file's text on the node; the card shows it.
    await card.getByText(/pushing its stomach between the shells/).waitFor();
    const hits = await search(page, 'how does a sea star eat a mussel');
    await hits.filter({ hasText: 'sea-stars.md' }).first().waitFor();
  } finally {
    await close();
  }
});

// Needs the service's reading of pages (issue 29, engineer h3): run after merging.
test('a link added is read by itself: its card shows the page preview, and its words are found', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Reef links');
  try {
    // The preview image is on another site, over https (the app's Content-Security-Policy shows no
    // plain http images): the browser's request for it is answered here, with a 1 × 1 PNG.
    await page.route('https://images.reef.example/**', (route) => route.fulfill({ contentType: 'image/png', body: ONE_PIXEL_PNG }));
    await page.getByRole('button', { name: 'Add link' }).click();
    await page.getByLabel('Web address').fill(`${pagesUrl}/octopus`);
    await page.getByRole('dialog').getByRole('button', { name: 'Add link' }).click();
    const node = await eventually('the url node', async () => (await api('GET', `/v1/boards/${boardId}/nodes?type=url`)).data[0]);
    const card = page.getByTestId(`node-${node.id}`);
    await card.getByText(/Searchable · \d+ passages?/).waitFor({ timeout: 30_000 });
    const preview = page.getByTestId(`preview-${node.id}`);
    await preview.getByText('How octopuses choose their dens').first().waitFor();
    await preview.getByText('Octopuses pick crevices near food and stack shells at the door.').waitFor();
    await preview.getByText('Reef Notes').waitFor();
    const image = preview.locator('img');
    assert.equal(await image.getAttribute('src'), 'https://images.reef.example/den.png');
    await eventually('the preview image loaded', () => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0));
    // The card says when it was read (the read_at the service wrote).
    const read = (await api('GET', `/v1/boards/${boardId}/nodes/${node.id}`)).data.node_data;
    assert.equal(typeof read.read_at, 'string');
    await card.getByText(/read (just now|\d+ min ago)/).waitFor();

    const hits = await search(page, 'middens of empty shells');
    await hits.filter({ hasText: 'How octopuses choose their dens' }).first().waitFor();
  } finally {
    await close();
  }
});

// Needs the service's reading of transcripts and .vtt uploads (issue 29, engineer h3): run after merging.
test("a video given a .vtt transcript on its card is read from it, and a hit names the passage's time", async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Reef videos');
  try {
    await page.getByRole('button', { name: 'Add link' }).click();
    await page.getByLabel('Web address').fill('https://www.youtube.com/watch?v=dQw4w9WgXcQ');
    await page.getByRole('dialog').getByRole('button', { name: 'Add link' }).click();
    const node = await eventually('the video node', async () => (await api('GET', `/v1/boards/${boardId}/nodes?type=video`)).data[0]);
    const card = page.getByTestId(`node-${node.id}`);
    const vtt = [
      'WEBVTT',
      '',
      '00:00:05.000 --> 00:00:09.000',
      'Welcome to the reef, where parrotfish grind coral into sand.',
      '',
      '00:01:12.000 --> 00:01:16.000',
      'A single parrotfish makes hundreds of kilos of white sand each year.',
      '',
    ].join('\n');
    await card.getByLabel('Transcript of Video').setInputFiles({ name: 'reef.vtt', mimeType: 'text/vtt', buffer: Buffer.from(vtt) });
    await card.getByText(/Searchable · \d+ passages?/).waitFor({ timeout: 30_000 });
    await card.getByText('Transcript: reef.vtt').waitFor();
    // The transcript is kept on the node, so Read again (anyone's) reads the same file.
    const data = await eventually('the transcript named on the node', async () => {
      const d = (await api('GET', `/v1/boards/${boardId}/nodes/${node.id}`)).data.node_data;
      return typeof d.transcript_asset_id === 'string' ? d : undefined;
    });
    assert.equal(data.transcript_name, 'reef.vtt');
    const hits = await search(page, 'parrotfish sand');
    const hit = hits.filter({ hasText: 'parrotfish' }).first();
    await hit.waitFor();
    assert.match(await hit.locator('.bw-hit__page').innerText(), /^\d+:\d\d$/);
  } finally {
    await close();
  }
});
