// End to end (Chromium): the product items of issue 14. Searchable notes that keep up with their
// text (re-indexed after edits, the badge derived from the service so it survives a reload, "Index
// behind" when someone else changed the text); the viewport kept per person and device; "Shared
// with me"; and the bugs, each checked where it showed.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { eventually, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer({ JOB_POLL_MS: '50' });
});

after(async () => {
  await server?.close();
});

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The labels of the search results for `query`, once the search has answered. */
async function searchLabels(page: Page, query: string): Promise<string[]> {
  const box = page.getByRole('searchbox', { name: 'Search this board' });
  await box.fill(query);
  await box.press('Enter');
  const results = page.getByRole('region', { name: 'Search results' });
  await results.waitFor();
  await eventually('the search to answer', async () => !(await results.getByText('Searching…').count()) || undefined);
  return results.getByRole('button').allInnerTexts();
}

test('a searchable note keeps up with its text: re-indexed after edits, the badge survives a reload, behind when changed elsewhere', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Garden', async (api, id) => {
    await api('POST', `/v1/boards/${id}/nodes`, {
      type: 'note',
      position: { x: 0, y: 0 },
      data: { label: 'Beds', text: 'Tomatoes need sun.' },
    });
  });
  try {
    const nodeId = (await api('GET', `/v1/boards/${boardId}/nodes`)).data[0].id as string;
    const card = page.getByTestId(`node-${nodeId}`);
    await page.getByRole('button', { name: 'Menu of Beds' }).click();
    await page.getByRole('menuitem', { name: 'Make searchable' }).click();
    await card.getByText('Searchable · 1 passage').waitFor({ timeout: 30_000 });
    assert.ok(
      (await searchLabels(page, 'tomatoes')).some((t) => t.includes('Beds')),
      'found by its words',
    );

    // Edited here: re-indexed once the typing settles, then found by the new words.
    const text = card.getByRole('textbox', { name: 'Note text' });
    await text.fill('Cucumbers climb the trellis.');
    await eventually(
      'the index to hold the new text',
      async () => {
        const index = (await api('GET', `/v1/boards/${boardId}/documents/nodes`)).data;
        return index[0]?.text_sha256 === sha256('Cucumbers climb the trellis.');
      },
      30_000,
    );
    await eventually('search to find the new words', async () =>
      (await searchLabels(page, 'cucumbers trellis')).some((t) => t.includes('Beds')),
    );
    await card.getByText('Searchable · 1 passage').waitFor();

    // The badge comes from the service: still there after a reload.
    await page.reload();
    await card.getByText('Searchable · 1 passage').waitFor();

    // Someone else changes the text: this page shows the index is behind, and Update redoes it.
    await api('PATCH', `/v1/boards/${boardId}/nodes/${nodeId}`, { data: { text: 'Beans fix nitrogen.' } });
    await card.getByText('Index behind the text').waitFor();
    await card.getByRole('button', { name: 'Update' }).click();
    await card.getByText('Searchable · 1 passage').waitFor({ timeout: 30_000 });
    assert.equal((await api('GET', `/v1/boards/${boardId}/documents/nodes`)).data[0].text_sha256, sha256('Beans fix nitrogen.'));
  } finally {
    await close();
  }
});
