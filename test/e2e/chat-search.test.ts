// End to end: search and chat on the board page in Chromium against the real service. A note made
// searchable from its menu (the job watched to completion), found by a search, and brought to the
// centre of the canvas, highlighted, by clicking the result. A chat reply streamed from an
// OpenAI-compatible server (test/helpers/fake-openai.ts, slow deltas) seen growing across several
// DOM snapshots, its sources shown and leading to their node; a stalled reply stopped with Stop,
// which aborts the request all the way to the model provider.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-openai.js';
import { eventually, openNewBoard, saveScreenshot, startWebServer, threadReady, type AccountApi } from './helpers/browser.js';

let server: TestServer;
let fake: FakeOpenAi;

before(async () => {
  fake = await startFakeOpenAi();
  server = await startWebServer({
    LLM_PROVIDER: 'openai',
    LLM_MODEL: 'fake-model',
    OPENAI_BASE_URL: fake.url,
    OPENAI_API_KEY: 'sk-test',
  });
});

after(async () => {
  await server?.close();
  await fake?.close();
});

const NOTES = [
  {
    label: 'Tide pools',
    text: 'Sea anemones eat plankton and small fish, which they catch with stinging tentacles.',
    at: { x: 640, y: 340 },
  },
  { label: 'Packing list', text: 'Boots, a waterproof notebook, pencils, and a hand lens.', at: { x: 0, y: 0 } },
  { label: 'Schedule', text: 'Leave at seven in the morning; low tide is at nine.', at: { x: 360, y: 40 } },
];

/** A board holding the notes above (its ids by label); `vectorize` names notes made searchable first. */
async function boardWithNotes(name: string, vectorize: string[] = []) {
  const ids: Record<string, string> = {};
  const opened = await openNewBoard(server, name, async (api: AccountApi, boardId: string) => {
    for (const note of NOTES) {
      ids[note.label] = (
        await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: note.at, data: { label: note.label, text: note.text } })
      ).data.id;
    }
    for (const [from, to] of [
      ['Packing list', 'Schedule'],
      ['Schedule', 'Tide pools'],
    ]) {
      await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: ids[from!], target_node_id: ids[to!] });
    }
    for (const label of vectorize) {
      const job = (
        await api('POST', `/v1/boards/${boardId}/documents`, { node_id: ids[label], text: NOTES.find((n) => n.label === label)!.text })
      ).data;
      await eventually('the vectorize job', async () => (await api('GET', `/v1/jobs/${job.id}`)).data.status === 'completed', 30_000);
    }
  });
  return { ...opened, ids };
}

/** Waits until the node's centre is at the canvas's centre (the view animates there). */
async function centred(page: Page, nodeId: string) {
  await eventually('the node centred', async () => {
    const pane = await page.locator('.react-flow').boundingBox();
    const node = await page.getByTestId(`node-${nodeId}`).boundingBox();
    if (!pane || !node) return false;
    const dx = node.x + node.width / 2 - (pane.x + pane.width / 2);
    const dy = node.y + node.height / 2 - (pane.y + pane.height / 2);
    return Math.abs(dx) < 3 && Math.abs(dy) < 3;
  });
}

test('a note read from its card is found by search, and the result centres and highlights it', async () => {
  const { page, api, boardId, ids, close } = await boardWithNotes('Search board');
  try {
    const target = ids['Tide pools']!;
    // Made through the API, the notes were not read by a page: the card offers Read.
    await page.getByTestId(`node-${target}`).getByRole('button', { name: 'Read', exact: true }).click();
    // The job is watched until it completes; the node says so.
    await page.getByTestId(`node-${target}`).getByText('Searchable · 1 passage').waitFor({ timeout: 30_000 });
    const chunks = (await api('GET', `/v1/boards/${boardId}/documents?node_id=${target}`)).data;
    assert.equal(chunks.length, 1);

    const box = page.getByRole('searchbox', { name: 'Search this board' });
    await box.fill('what do anemones eat');
    await box.press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    const hit = results.getByRole('button').filter({ hasText: 'Tide pools' });
    await hit.waitFor();
    assert.equal(await results.getByRole('button').count(), 1, 'only the vectorized note is found');
    assert.match(await hit.locator('.bw-hit__score').innerText(), /^(0|1)\.\d\d$/);
    // Named as its card is, with no page for a note.
    assert.equal(await hit.locator('.bw-hit__source').innerText(), 'Tide pools');
    assert.equal(await hit.locator('.bw-hit__page').count(), 0);
    await hit.click();

    const node = page.getByTestId(`node-${target}`);
    await page.waitForFunction(
      (id) => document.querySelector(`[data-testid="node-${id}"]`)?.getAttribute('data-highlighted') === 'true',
      target,
    );
    assert.equal(await page.locator('[data-highlighted="true"]').count(), 1);
    await centred(page, target);
    assert.ok(await node.isVisible());
  } finally {
    await close();
  }
});

test('a chat reply streams in piece by piece, lists its sources, and Stop aborts a reply', async () => {
  const { page: p, api, boardId, ids, close } = await boardWithNotes('Chat board', ['Tide pools']);
  try {
    const tidePools = ids['Tide pools']!;
    const deltas = [
      'Sea anemones ',
      'eat plankton ',
      'and small fish, ',
      'which they catch ',
      'with stinging ',
      'tentacles ',
      '(see Tide pools).',
    ];
    fake.script({ kind: 'answer', deltas, delayMs: 300 });

    await p.getByRole('button', { name: 'Chat' }).click();
    const panel = p.getByRole('complementary', { name: 'Chat' });
    await panel.getByRole('button', { name: 'New thread' }).click();
    const message = panel.getByRole('textbox', { name: 'Message' });
    await message.fill('What do anemones eat?');
    await threadReady(panel);
    await message.press('Enter');

    // Snapshots of the reply while it streams: it grows through several partial texts.
    const reply = panel.getByTestId('assistant-message').last().locator('.bw-message__text');
    const seen: string[] = [];
    const stop = panel.getByRole('button', { name: 'Stop' });
    await stop.waitFor();
    while (await stop.isVisible()) {
      const text = (await reply.innerText().catch(() => '')).trim();
      if (text && seen.at(-1) !== text) seen.push(text);
      await p.waitForTimeout(60);
    }
    const full = deltas.join('');
    await panel.getByText(full).waitFor();
    const partial = seen.filter((t) => t !== full.trim());
    assert.ok(partial.length >= 3, `several partial texts seen: ${JSON.stringify(seen)}`);
    for (const t of partial) assert.ok(full.startsWith(t), `"${t}" is a beginning of the reply`);
    assert.equal(fake.requests.at(-1)!.body.stream, true);

    // Its sources: the vectorized note, a button that brings the node into view.
    const source = panel.locator('.bw-sources').last().getByRole('button', { name: 'Tide pools' });
    await source.waitFor();
    await source.click();
    await p.waitForFunction(
      (id) => document.querySelector(`[data-testid="node-${id}"]`)?.getAttribute('data-highlighted') === 'true',
      tidePools,
    );
    await centred(p, tidePools);
    await p.getByRole('status').filter({ hasText: 'All changes saved' }).waitFor();
    await saveScreenshot(p, 'chat.png');

    // A reply that stalls: Stop ends it, the partial text stays marked as stopped, the provider
    // request is aborted, and the box is ready for the next question.
    fake.script({ kind: 'stall', deltas: ['Something ', 'eats anemones: '] });
    const abortedBefore = fake.aborted;
    const aborted = fake.nextAbort();
    await message.fill('And what eats anemones?');
    await message.press('Enter');
    await panel.getByTestId('assistant-message').last().getByText('Something eats anemones:').waitFor();
    await stop.click();
    await panel.getByText('Stopped. This partial reply was not saved.').waitFor();
    await aborted;
    assert.equal(fake.aborted, abortedBefore + 1);
    assert.equal(await stop.count(), 0);
    await panel.getByRole('button', { name: 'Send' }).waitFor();
    const stored = (await api('GET', `/v1/boards/${boardId}/chats`)).data;
    assert.equal(stored.length, 1);
    const messages = (await api('GET', `/v1/boards/${boardId}/chats/${stored[0].id}/messages`)).data as { role: string; content: string }[];
    assert.deepEqual(
      messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
      'the stopped reply was not stored',
    );
    assert.equal(messages[1]!.content, full);
  } finally {
    await close();
  }
});
