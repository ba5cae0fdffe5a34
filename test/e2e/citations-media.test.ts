// End to end: citations that point into a PDF's page and a video's second, in Chromium against the
// real service and its built-in answerer. A reply's marker on a passage of a two-page PDF opens the
// PDF at the page that holds it; on a passage of a video's transcript (a WebVTT file uploaded as an
// asset of the board and read with the node), it starts the video's player at the cited second. The
// video platform is the only fake: its player's address is answered here (no request leaves the
// machine), and the address the card asked for is recorded.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PDFDocument } from 'pdf-lib';
import type { Locator, Page } from 'playwright-core';
import { postParts } from '../helpers/assets.js';
import type { TestServer } from '../helpers/harness.js';
import { type AccountApi, eventually, openNewBoard, startWebServer, threadReady } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});
after(async () => {
  await server?.close();
});

/** A PDF whose page 2 alone speaks of glaciers. */
async function twoPagePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([300, 200]).drawText('Volcanoes erupt with lava.', { x: 20, y: 100, size: 12 });
  doc.addPage([300, 200]).drawText('Glaciers carve deep valleys.', { x: 20, y: 100, size: 12 });
  return Buffer.from(await doc.save());
}

const TRANSCRIPT = [
  'WEBVTT',
  '',
  '00:00:05.000 --> 00:00:09.000',
  'Welcome to the reef, where the water is warm and clear.',
  '',
  '00:01:12.000 --> 00:01:16.000',
  'A single parrotfish grinds coral into hundreds of kilos of white sand each year.',
  '',
].join('\n');

/** Uploads a file as an asset of the board (asserting 201); returns the asset. */
async function upload(token: string, boardId: string, filename: string, type: string, data: Buffer) {
  const res = await postParts(server, token, boardId, [{ filename, type, data }]);
  assert.equal(res.status, 201, res.text);
  return res.body.data;
}

async function read(api: AccountApi, boardId: string, body: Record<string, unknown>) {
  const job = (await api('POST', `/v1/boards/${boardId}/documents`, body)).data;
  await eventually(
    'the node read',
    async () => {
      const status = (await api('GET', `/v1/jobs/${job.id}`)).data.status;
      if (status === 'failed') throw new Error(`the reading of ${JSON.stringify(body)} failed`);
      return status === 'completed';
    },
    30_000,
  );
}

/** Asks in a new thread; returns the reply once its first marker is shown. */
async function ask(page: Page, question: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Chat' }).click();
  const panel = page.getByRole('complementary', { name: 'Chat' });
  await panel.getByRole('button', { name: 'New thread' }).click();
  const message = panel.getByRole('textbox', { name: 'Message' });
  await message.fill(question);
  await threadReady(panel);
  await message.press('Enter');
  const reply = panel.getByTestId('assistant-message').last();
  await reply.getByRole('button', { name: /^Source 1:/ }).waitFor({ timeout: 30_000 });
  return reply;
}

/** Opens the board again, so the page holds what the API made (and its chats). */
async function reopen(page: Page, name: string) {
  await page.reload();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

/** The last reply's stored citations. */
async function storedCitations(api: AccountApi, boardId: string) {
  const chats = (await api('GET', `/v1/boards/${boardId}/chats`)).data;
  const messages = (await api('GET', `/v1/boards/${boardId}/chats/${chats[0].id}/messages`)).data;
  return messages.at(-1).metadata.citations as { node_id: string; page?: number; start_seconds?: number }[];
}

test("a citation of a PDF's passage opens the PDF at the page that holds it", async () => {
  const { page, api, account, boardId, close } = await openNewBoard(server, 'Earth');
  try {
    const asset = await upload(account.accessToken, boardId, 'earth.pdf', 'application/pdf', await twoPagePdf());
    const pdf = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'pdf',
        position: { x: 0, y: 0 },
        data: { storagePath: asset.storage_path, publicUrl: asset.url, fileSize: asset.size, label: 'Earth', pageCount: 2 },
      })
    ).data;
    await read(api, boardId, { node_id: pdf.id });
    await reopen(page, 'Earth');
    const card = page.getByTestId(`node-${pdf.id}`);
    await card.getByRole('link', { name: 'Open PDF', exact: true }).waitFor();

    const reply = await ask(page, 'What carves deep valleys?');
    const marker = reply.getByRole('button', { name: /^Source 1:/ });
    assert.match((await marker.getAttribute('aria-label')) ?? '', /Glaciers carve deep valleys/);
    const [cited] = await storedCitations(api, boardId);
    assert.equal(cited?.node_id, pdf.id);
    assert.equal(cited?.page, 2);

    await marker.click();
    const open = card.getByRole('link', { name: 'Open PDF at p. 2' });
    await open.waitFor();
    assert.equal(await open.getAttribute('href'), `${asset.url}#page=2`);
    assert.equal(await card.getAttribute('data-highlighted'), 'true');
    // The link opens the file there: a new tab at #page=2, the file served by the service.
    const [tab] = await Promise.all([page.context().waitForEvent('page'), open.click()]);
    await eventually('the tab at its address', async () => tab.url() !== 'about:blank' && tab.url());
    assert.equal(tab.url(), `${asset.url}#page=2`);
  } finally {
    await close();
  }
});

test("a citation of a video's transcript starts its player at the cited second", async () => {
  const { page, api, account, boardId, close } = await openNewBoard(server, 'Reef');
  // The video platform's player, answered here; the addresses asked for are kept.
  const framed: string[] = [];
  await page.route('https://www.youtube-nocookie.com/**', (route) => {
    framed.push(route.request().url());
    return route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>player</title><p>player</p>' });
  });
  await page.route('https://i.ytimg.com/**', (route) => route.abort());
  try {
    const video = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'video',
        position: { x: 0, y: 0 },
        data: { label: 'Parrotfish', url: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ' },
      })
    ).data;
    const transcript = await upload(account.accessToken, boardId, 'reef.vtt', 'text/vtt', Buffer.from(TRANSCRIPT));
    await read(api, boardId, { node_id: video.id, transcript_asset_id: transcript.id });
    await reopen(page, 'Reef');
    const card = page.getByTestId(`node-${video.id}`);
    await card.getByRole('button', { name: 'Play Parrotfish' }).waitFor();

    const reply = await ask(page, 'How much white sand does a parrotfish make?');
    const marker = reply.getByRole('button', { name: /^Source 1:/ });
    assert.match((await marker.getAttribute('aria-label')) ?? '', /parrotfish grinds coral/);
    const [cited] = await storedCitations(api, boardId);
    assert.equal(cited?.node_id, video.id);
    assert.equal(cited?.start_seconds, 72);

    await marker.click();
    const player = card.locator('iframe');
    await player.waitFor();
    assert.equal(await player.getAttribute('src'), 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1&rel=0&start=72');
    await eventually('the player asked for at 72 s', async () => framed.some((u) => /[?&]start=72(&|$)/.test(u)));
    assert.equal(await card.getAttribute('data-highlighted'), 'true');
  } finally {
    await close();
  }
});
