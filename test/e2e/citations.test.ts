// End to end: citations in the chat panel, in Chromium against the real service and its built-in
// answerer. A reply's marker is a button; a click brings the cited note into view and selects the
// cited passage in its text, found again after the note changed. "Ask about this selection" starts
// a thread limited to the selected notes (node_ids), whose reply cites only them; "Add to board"
// makes a reply a note joined by edges to the notes it cites, saved on the service.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { eventually, openNewBoard, startWebServer, threadReady, type AccountApi } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});
after(async () => {
  await server?.close();
});

const TIDES = 'Low tide is at nine.\nSea anemones eat plankton and small fish with stinging tentacles.';
const PACKING = 'Boots, a waterproof notebook, pencils, and a hand lens for the rock pools.';
const GARDEN = 'The garden snails eat lettuce leaves at night.';

async function board(name: string) {
  const ids: Record<string, string> = {};
  const opened = await openNewBoard(server, name, async (api: AccountApi, boardId: string) => {
    for (const [label, text, x] of [
      ['Tide pools', TIDES, 0],
      ['Packing list', PACKING, 340],
      ['Garden', GARDEN, 680],
    ] as const) {
      ids[label] = (
        await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x, y: 0 }, data: { label, text } })
      ).data.id;
      const job = (await api('POST', `/v1/boards/${boardId}/documents`, { node_id: ids[label], text })).data;
      await eventually('the vectorize job', async () => (await api('GET', `/v1/jobs/${job.id}`)).data.status === 'completed', 30_000);
    }
  });
  return { ...opened, ids };
}

async function ask(page: Page, question: string): Promise<Locator> {
  const panel = page.getByRole('complementary', { name: 'Chat' });
  const message = panel.getByRole('textbox', { name: 'Message' });
  await message.fill(question);
  await threadReady(panel);
  await message.press('Enter');
  const reply = panel.getByTestId('assistant-message').last();
  await reply.getByRole('button', { name: /^Source 1:/ }).waitFor({ timeout: 30_000 });
  return reply;
}

/** The note's text and the selection in it, as the page has them. */
const noteSelection = (page: Page, nodeId: string) =>
  page.evaluate((id) => {
    const el = document.querySelector<HTMLTextAreaElement>(`[data-testid="node-${id}"] textarea`);
    return el ? { text: el.value, start: el.selectionStart, end: el.selectionEnd, focused: document.activeElement === el } : undefined;
  }, nodeId);

test('a citation marker shows the cited passage selected in its note, found again after the note changed', async () => {
  const { page, api, boardId, ids, close } = await board('Citations board');
  try {
    const tides = ids['Tide pools']!;
    await page.getByRole('button', { name: 'Chat' }).click();
    const panel = page.getByRole('complementary', { name: 'Chat' });
    await panel.getByRole('button', { name: 'New thread' }).click();
    const reply = await ask(page, 'What do sea anemones eat?');
    const quote = 'Sea anemones eat plankton and small fish with stinging tentacles.';
    const marker = reply.getByRole('button', { name: /^Source 1:/ });
    assert.equal(await marker.innerText(), '1');
    assert.match((await marker.getAttribute('aria-label')) ?? '', /Sea anemones eat plankton/);

    await marker.click();
    await page.waitForFunction(
      (id) => document.querySelector(`[data-testid="node-${id}"]`)?.getAttribute('data-highlighted') === 'true',
      tides,
    );
    const first = await eventually('the passage selected', async () => {
      const s = await noteSelection(page, tides);
      return s?.focused && s.end > s.start ? s : undefined;
    });
    assert.equal(first.text.slice(first.start, first.end), quote);
    assert.equal(first.start, TIDES.indexOf(quote));

    // Someone changes the note: the passage moves; the citation still finds it.
    const changed = `A new first line about the trip.\n${TIDES}`;
    await api('PATCH', `/v1/boards/${boardId}/nodes/${tides}`, { data: { text: changed } });
    await eventually('the change shown', async () => (await noteSelection(page, tides))?.text === changed);
    await page.locator('.react-flow__pane').click({ position: { x: 5, y: 5 } });
    await marker.click();
    const again = await eventually('the passage selected again', async () => {
      const s = await noteSelection(page, tides);
      return s?.focused && s.start === changed.indexOf(quote) ? s : undefined;
    });
    assert.equal(again.text.slice(again.start, again.end), quote);
  } finally {
    await close();
  }
});

test('"Ask about this selection" limits the thread to the selected notes; "Add to board" makes a reply a linked note', async () => {
  const { page, api, boardId, ids, close } = await board('Selection board');
  try {
    const [tides, packing, garden] = [ids['Tide pools']!, ids['Packing list']!, ids.Garden!];
    await page.getByTestId(`node-${tides}`).locator('.bw-node__title').click();
    await page
      .getByTestId(`node-${packing}`)
      .locator('.bw-node__title')
      .click({ modifiers: ['Shift'] });
    await page.getByRole('button', { name: 'Chat' }).click();
    const panel = page.getByRole('complementary', { name: 'Chat' });
    await panel.getByRole('button', { name: 'Ask about this selection (2 nodes)' }).click();
    await panel.getByText('2 selected nodes', { exact: true }).waitFor();

    // The garden note answers "what eats … at night" best, but it is not in the selection.
    const reply = await ask(page, 'What do the garden snails eat at night? What do anemones eat?');
    const text = await reply.locator('.bw-message__text').innerText();
    assert.doesNotMatch(text, /snails/);
    const chats = (await api('GET', `/v1/boards/${boardId}/chats`)).data;
    assert.deepEqual([...chats[0].node_ids].sort(), [tides, packing].sort());
    const messages = (await api('GET', `/v1/boards/${boardId}/chats/${chats[0].id}/messages`)).data;
    const cited: string[] = messages.at(-1).metadata.citations.map((c: { node_id: string }) => c.node_id);
    assert.ok(cited.length > 0 && cited.every((id) => id === tides || id === packing), `cited ${cited}`);
    assert.ok(!cited.includes(garden));

    // Add to board: a note with the reply's text (without markers), joined to each cited note.
    const before = (await api('GET', `/v1/boards/${boardId}/nodes`)).data.length;
    await reply.getByRole('button', { name: 'Add to board' }).click();
    const added = await eventually('the note saved on the service', async () => {
      const nodes = (await api('GET', `/v1/boards/${boardId}/nodes`)).data;
      return nodes.length === before + 1 ? nodes.find((n: { id: string }) => ![tides, packing, garden].includes(n.id)) : undefined;
    });
    assert.match(added.node_data.text, /Sea anemones eat plankton/);
    assert.doesNotMatch(added.node_data.text, /\[\d+\]/);
    const edges = await eventually('its edges saved', async () => {
      const list = (await api('GET', `/v1/boards/${boardId}/edges`)).data.filter(
        (e: { source_node_id: string }) => e.source_node_id === added.id,
      );
      return list.length === new Set(cited).size ? list : undefined;
    });
    assert.deepEqual(edges.map((e: { target_node_id: string }) => e.target_node_id).sort(), [...new Set(cited)].sort());
    await page.getByTestId(`node-${added.id}`).waitFor();
  } finally {
    await close();
  }
});
