// End to end (issue 30): a board of 10,000 cards (the default BOARD_MAX_NODES) draws its first cards
// while its answer is still being read. The page is opened through a proxy that sends the start of
// `GET /v1/boards/{id}` and holds back the rest (helpers/held-answer.ts): the first cards are drawn
// meanwhile; the person moves one, deletes another and adds a note, and someone else moves a card not
// arrived yet. Once the rest arrives every card is on the canvas exactly once (the new note among
// them, the deleted one not), and both moves are kept.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { allSaved, eventually, launchBrowser, signUp, startWebServer } from './helpers/browser.js';
import { holdAnswers } from './helpers/held-answer.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

const CARDS = 10_000;
const COLUMNS = 30;
/** Right of the grid (its last column ends at 29 * 320 + 260). */
const RIGHT = COLUMNS * 320 + 200;
/** The part of the board's answer sent before the rest is held back (about a thousand cards). */
const FIRST_BYTES = 200 * 1024;

test('10,000 cards: the first cards drawn while the rest of the board is still held back; edits made meanwhile (a move, a deletion, a new note, a move by someone else) stay once every card has arrived', async () => {
  const account = await signUp(server);
  const api = async (method: string, urlPath: string, body?: unknown) => {
    const res = await server.request<any>(method, urlPath, { token: account.accessToken, body });
    if (res.status >= 300) throw new Error(`${method} ${urlPath} answered ${res.status}: ${res.text}`);
    return res.body;
  };
  const boardId = (await api('POST', '/v1/boards', { name: 'Ten thousand cards' })).data.id as string;
  const ids: string[] = [];
  for (let start = 0; start < CARDS; start += 500) {
    const operations = [];
    for (let i = start; i < start + 500; i++) {
      const position = { x: (i % COLUMNS) * 320, y: Math.floor(i / COLUMNS) * 220 };
      operations.push({ op: 'create_node', type: 'note', position, data: { text: `Card ${i + 1}` } });
    }
    const made = await api('POST', `/v1/boards/${boardId}/batch`, { operations });
    ids.push(...made.data.results.map((r: { id: string }) => r.id));
  }

  const proxy = await holdAnswers(server.url, (method, path) => method === 'GET' && path === `/v1/boards/${boardId}`, FIRST_BYTES);
  const { context, page, close } = await launchBrowser();
  try {
    await context.addCookies([
      { name: 'bw_refresh', value: account.refreshCookie, url: `${proxy.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
    ]);
    await page.goto(`${proxy.url}/boards/${boardId}`);
    await page.getByRole('heading', { name: 'Ten thousand cards', level: 1 }).waitFor({ timeout: 60_000 });

    // Fitted far out: the first cards are drawn on the far layer while the rest is held back.
    const layer = page.locator('canvas.bw-far-layer');
    await eventually('the first cards drawn', async () => Number(await layer.getAttribute('data-drawn')) > 0, 60_000);
    const cardsNow = async () => Number(await layer.getAttribute('data-cards')) + (await page.locator('.react-flow__node').count());
    const early = await cardsNow();
    assert.deepEqual(proxy.answers(), { started: 1, whole: 0 }, 'the rest of the board is still held back');
    assert.ok(early > 0 && early < CARDS, `${early} cards on the canvas before the rest arrives`);

    // Meanwhile the person moves a card in view (the first of its row, at the view's middle) left,
    // onto empty canvas (far out, the card under the pointer comes into the page), and adds a note. A
    // key pressed first: from the person's first action on, the view is theirs (no more fitting to the
    // cards as they arrive).
    await page.keyboard.press('Shift');
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    const readView = () =>
      page.evaluate(() => {
        const [x, y, zoom] = (
          /translate\(([-\d.]+)px, ([-\d.]+)px\) scale\(([\d.]+)\)/.exec(
            document.querySelector<HTMLElement>('.react-flow__viewport')!.style.transform,
          ) ?? []
        )
          .slice(1)
          .map(Number);
        return { x: x!, y: y!, zoom: zoom! };
      });
    let view = await readView();
    await eventually('the view settled', async () => {
      await page.waitForTimeout(300);
      const now = await readView();
      const same = JSON.stringify(now) === JSON.stringify(view);
      view = now;
      return same;
    });
    const screenOf = (x: number, y: number) => ({ x: pane.x + view.x + x * view.zoom, y: pane.y + view.y + y * view.zoom });
    const row = Math.floor((pane.height / 2 - view.y) / view.zoom / 220);
    const inPage = (id: string) => page.locator(`.react-flow__node[data-id="${id}"]`);
    // A: moved right of the grid by the person (not near the edge of the view, where a drag pans it);
    // B (beside it) deleted by the person; Z (the last card, not arrived yet) moved by someone else
    // through the API, to below A. RIGHT is the canvas x past the grid's last column.
    const [a, b, z] = [ids[row * COLUMNS]!, ids[row * COLUMNS + 1]!, ids[CARDS - 1]!];
    const over = screenOf(130, row * 220 + 80);
    await page.mouse.move(over.x, over.y);
    await inPage(a).waitFor();
    await page.mouse.down();
    for (let i = 1; i <= 20; i++) await page.mouse.move(over.x + (RIGHT * view.zoom * i) / 20, over.y);
    await page.mouse.up();
    const overB = screenOf(320 + 130, row * 220 + 80);
    await page.mouse.move(overB.x, overB.y);
    await inPage(b).waitFor();
    await page.mouse.click(overB.x, overB.y);
    await page.keyboard.press('Delete');
    await inPage(b).waitFor({ state: 'detached' });
    // Room for a note: the board held the most nodes a board may (BOARD_MAX_NODES) until B went.
    await page.getByRole('button', { name: 'Add note' }).click();
    await api('PATCH', `/v1/boards/${boardId}/nodes/${z}`, { position: { x: RIGHT, y: (row + 3) * 220 } });
    await allSaved(page);
    const moved = await eventually('A moved on the service', async () => {
      const node = (await api('GET', `/v1/boards/${boardId}/nodes/${a}`)).data;
      return node.position_x > 2000 ? node : undefined;
    });
    const onService = (await api('GET', `/v1/boards/${boardId}`)).data.flow_state.nodes as { id: string }[];
    assert.equal(onService.length, CARDS, 'B deleted and the note added');
    assert.ok(!onService.some((n) => n.id === b));
    assert.deepEqual(proxy.answers(), { started: 1, whole: 0 }, 'still held back while the person worked');

    // The rest arrives: every card once on the canvas (B gone, the note there); the moves of A and Z
    // kept on the service (the answer held back had them where they were).
    proxy.release();
    let count = 0;
    await eventually(
      'every card on the canvas',
      async () => {
        count = await cardsNow();
        return count === CARDS;
      },
      60_000,
    ).catch((error) => {
      throw new Error(`${(error as Error).message}: ${count} cards`);
    });
    // The event stream's reload after the whole board arrived changes none of it.
    await allSaved(page);
    assert.equal(await cardsNow(), CARDS);
    assert.equal(await inPage(b).count(), 0, 'B stays deleted');
    const final = (await api('GET', `/v1/boards/${boardId}`)).data.flow_state.nodes as { id: string; position: { x: number } }[];
    assert.equal(final.find((n) => n.id === a)?.position.x, moved.position_x, 'A where the person put it');
    assert.equal(final.find((n) => n.id === z)?.position.x, RIGHT, 'Z where the other person put it');
  } finally {
    await close();
    await proxy.close();
  }
});
