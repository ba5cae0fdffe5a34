// End to end: a note's text drawn as Markdown while it is not being edited (issue 30): headings,
// emphasis, task lists, links (a new tab, no opener, no referrer), code; raw HTML is not rendered
// and a javascript: link goes nowhere. A click in the note edits the raw text, which is saved as
// typed and drawn again once the note loses the focus. The card is titled by its first line
// without its Markdown marks.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { allSaved, eventually, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

const TEXT = [
  '# Quarterly **risks**',
  '',
  'The **supply** risk and _later_ ones.',
  '',
  '- [x] listed',
  '- [ ] costed',
  '',
  'See [the plan](https://example.com/plan) and `npm test`.',
  '',
  '<img src="x" onerror="window.__pwned = 1"><script>window.__pwned = 2</script>',
  '',
  '[bad](javascript:window.__pwned=3)',
].join('\n');

test('a note shows its Markdown when not edited and its raw text while edited', async () => {
  let id = '';
  const { page, api, boardId, close } = await openNewBoard(server, 'Markdown board', async (api, boardId) => {
    id = (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 0, y: 0 }, data: { text: TEXT } })).data.id;
  });
  try {
    const card = page.getByTestId(`node-${id}`);
    const md = card.getByTestId('note-markdown');
    await md.waitFor();
    assert.equal(await md.getByRole('heading', { level: 1 }).innerText(), 'Quarterly risks');
    assert.equal(await md.locator('strong').nth(1).innerText(), 'supply');
    assert.equal(await md.locator('em').innerText(), 'later');
    const boxes = md.getByRole('checkbox');
    assert.equal(await boxes.count(), 2);
    assert.equal(await boxes.nth(0).isChecked(), true);
    assert.equal(await boxes.nth(1).isChecked(), false);
    assert.equal(await md.locator('code').innerText(), 'npm test');
    const link = md.getByRole('link', { name: 'the plan' });
    assert.equal(await link.getAttribute('href'), 'https://example.com/plan');
    assert.equal(await link.getAttribute('target'), '_blank');
    assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
    // No raw HTML, no script, no javascript: address.
    assert.equal(await md.locator('img, script').count(), 0);
    const bad = await md.getByRole('link', { name: 'bad' }).getAttribute('href');
    assert.ok(!bad?.toLowerCase().startsWith('javascript:'), `the javascript: link is defused: ${bad}`);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    // The card is titled by its first line without the Markdown marks.
    assert.equal(await card.locator('.bw-node__title').innerText(), 'Quarterly risks');
    // The raw text is in the page under the drawing (transparent), for the caret and screen readers.
    const text = card.getByRole('textbox', { name: 'Note text' });
    assert.equal(await text.inputValue(), TEXT);
    assert.equal(await text.evaluate((el) => getComputedStyle(el).color), 'rgba(0, 0, 0, 0)');

    // A click on the text (not on a link) edits it: the raw text shows, the drawing goes.
    const box = await md.boundingBox();
    assert.ok(box);
    await page.mouse.click(box.x + box.width - 10, box.y + 40);
    await eventually('the note edited', () => text.evaluate((el) => document.activeElement === el));
    assert.equal(await md.isVisible(), false, 'no Markdown drawn while the note is edited');
    assert.notEqual(await text.evaluate((el) => getComputedStyle(el).color), 'rgba(0, 0, 0, 0)');
    await text.press('Control+End');
    await text.pressSequentially('\n\n## Next *steps*');
    await allSaved(page);
    await eventually('the raw text saved', async () =>
      ((await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data.node_data.text as string).endsWith('## Next *steps*'),
    );

    // Leaving the note draws it again, with what was typed: Escape, or a press on the empty canvas.
    await text.press('Escape');
    await md.waitFor();
    await text.click({ position: { x: 5, y: 5 } });
    await eventually('the note edited again', async () => !(await md.isVisible()));
    const pane = await page.locator('.react-flow__pane').boundingBox();
    const note = await card.boundingBox();
    assert.ok(pane && note);
    await page.mouse.click(note.x + note.width + 40, pane.y + 60);
    await md.waitFor();
    assert.equal(await md.getByRole('heading', { level: 2 }).innerText(), 'Next steps');
    assert.equal(await md.locator('h2 em').innerText(), 'steps');
  } finally {
    await close();
  }
});
