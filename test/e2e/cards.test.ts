// End to end: cards and connections in Chromium against the real service. A card resized by its
// handle, coloured and renamed (from its menu and by a double-click on its title), a connection
// labelled and coloured: all saved in node_data / edge_data under the JSON Canvas keys (and in the
// export), and all still there after a reload. Links: "Add link" refuses what is not a web address
// and makes a url card showing its address; a pasted YouTube address makes a video node (other
// pastes are left alone); a dropped address makes a url card where it was let go; a video plays in
// its card in YouTube's privacy-enhanced player, which the page's Content-Security-Policy allows
// (the player's request is routed and aborted here: the test machine has no internet). Someone
// who may only view the board sees the colours, titles and labels but cannot change them, and
// sees the owner's next change without a reload.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TestServer } from '../helpers/harness.js';
import { allSaved, eventually, openBoardAsNewAccount, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

/** The canvas's zoom (the viewport's scale), to turn screen pixels into canvas units. */
async function zoomOf(page: Page): Promise<number> {
  const transform = await page.locator('.react-flow__viewport').evaluate((el) => getComputedStyle(el).transform);
  const scale = /matrix\(([-\d.e]+)/.exec(transform)?.[1];
  assert.ok(scale, `viewport transform ${transform}`);
  return Number(scale);
}

test('a card resized, coloured and renamed and a connection labelled and coloured are all there after a reload', async () => {
  const ids: Record<string, string> = {};
  const { page, api, boardId, close } = await openNewBoard(server, 'Cards board', async (api, boardId) => {
    const node = async (text: string, y: number) =>
      (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 0, y }, data: { text } })).data.id as string;
    ids.a = await node('Alpha', 0);
    ids.b = await node('Beta\nsecond line', 420);
    ids.edge = (await api('POST', `/v1/boards/${boardId}/edges`, { source_node_id: ids.a, target_node_id: ids.b })).data.id;
  });
  const { a, b, edge } = ids as { a: string; b: string; edge: string };
  const nodeData = async (id: string) => (await api('GET', `/v1/boards/${boardId}/nodes/${id}`)).data.node_data;
  try {
    // A note without a title is titled by its first line.
    const cardA = page.getByTestId(`node-${a}`);
    const cardB = page.getByTestId(`node-${b}`);
    await cardB.getByRole('button', { name: 'Menu of Beta' }).waitFor();

    // Resize: select the card, drag its bottom-right handle.
    const zoom = await zoomOf(page);
    await cardA.locator('.bw-node__title').click();
    const handle = cardA.locator('.react-flow__resize-control.handle.bottom.right');
    await handle.waitFor();
    const before = await cardA.boundingBox();
    const grip = await handle.boundingBox();
    assert.ok(before && grip);
    await page.mouse.move(grip.x + grip.width / 2, grip.y + grip.height / 2);
    await page.mouse.down();
    await page.mouse.move(grip.x + 60, grip.y + 40, { steps: 6 });
    await page.mouse.move(grip.x + grip.width / 2 + 120, grip.y + grip.height / 2 + 90, { steps: 6 });
    await page.mouse.up();
    const sized = await eventually('the size saved', async () => {
      const data = await nodeData(a);
      return typeof data.width === 'number' && typeof data.height === 'number' ? data : undefined;
    });
    const expectedWidth = before.width / zoom + 120 / zoom;
    const expectedHeight = before.height / zoom + 90 / zoom;
    assert.ok(Math.abs(sized.width - expectedWidth) < 4, `width ${sized.width}, expected about ${expectedWidth}`);
    assert.ok(Math.abs(sized.height - expectedHeight) < 4, `height ${sized.height}, expected about ${expectedHeight}`);
    assert.equal(sized.text, 'Alpha', 'the rest of the data is kept');

    // From the top-left handle the card grows up and left: its position is saved with its size.
    const nodeB = async () => (await api('GET', `/v1/boards/${boardId}/nodes/${b}`)).data;
    const startB = await nodeB();
    await cardB.locator('.bw-node__title').click();
    const boxB = await cardB.boundingBox();
    const gripB = await cardB.locator('.react-flow__resize-control.handle.top.left').boundingBox();
    assert.ok(boxB && gripB);
    await page.mouse.move(gripB.x + gripB.width / 2, gripB.y + gripB.height / 2);
    await page.mouse.down();
    await page.mouse.move(gripB.x - 20, gripB.y - 10, { steps: 4 });
    await page.mouse.move(gripB.x + gripB.width / 2 - 50, gripB.y + gripB.height / 2 - 30, { steps: 4 });
    await page.mouse.up();
    const grown = await eventually('the position and size saved', async () => {
      const node = await nodeB();
      return typeof node.node_data.width === 'number' && node.position_x !== startB.position_x ? node : undefined;
    });
    assert.ok(Math.abs(grown.position_x - (startB.position_x - 50 / zoom)) < 4, `x ${startB.position_x} -> ${grown.position_x}`);
    assert.ok(Math.abs(grown.position_y - (startB.position_y - 30 / zoom)) < 4, `y ${startB.position_y} -> ${grown.position_y}`);
    assert.ok(Math.abs(grown.node_data.width - (boxB.width + 50) / zoom) < 4, `width ${grown.node_data.width}`);
    // Undo puts the card back where it was, at its old size; redo grows it again.
    await page.keyboard.press('Control+z');
    await eventually('the resize undone', async () => {
      const node = await nodeB();
      return node.position_x === startB.position_x && node.position_y === startB.position_y && node.node_data.width === undefined;
    });
    await page.keyboard.press('Control+Shift+z');
    await eventually('the resize redone', async () => {
      const node = await nodeB();
      return node.position_x === grown.position_x && node.position_y === grown.position_y && node.node_data.width === grown.node_data.width;
    });

    // Colour and rename from the card's menu.
    await cardA.getByRole('button', { name: 'Menu of Alpha' }).click();
    await page.getByRole('group', { name: 'Card colour' }).getByRole('button', { name: 'Green' }).click();
    await eventually('the colour saved', async () => (await nodeData(a)).color === '4');
    await page.getByRole('menuitem', { name: 'Rename' }).click();
    const titleA = cardA.getByRole('textbox', { name: 'Title' });
    await titleA.fill('First step');
    await titleA.press('Enter');
    await eventually('the title saved', async () => (await nodeData(a)).label === 'First step');
    await cardA.getByRole('button', { name: 'Menu of First step' }).waitFor();

    // Rename by a double-click on the title; Escape leaves it as it was.
    await cardB.locator('.bw-node__title').dblclick();
    await cardB.getByRole('textbox', { name: 'Title' }).fill('Not this');
    await cardB.getByRole('textbox', { name: 'Title' }).press('Escape');
    await cardB.locator('.bw-node__title').dblclick();
    await cardB.getByRole('textbox', { name: 'Title' }).fill('Second step');
    await cardB.getByRole('textbox', { name: 'Title' }).press('Enter');
    await eventually('the second title saved', async () => (await nodeData(b)).label === 'Second step');

    // The connection: selected, it offers a label and a colour; a double-click on it edits its label.
    const edgeEl = page.locator(`.react-flow__edge[data-id="${edge}"]`);
    await edgeEl.click();
    const tools = page.getByRole('toolbar', { name: 'Connection tools' });
    await tools.getByRole('button', { name: 'Add label' }).waitFor();
    await edgeEl.dblclick();
    const labelInput = page.getByRole('textbox', { name: 'Connection label' });
    await labelInput.fill('leads to');
    await labelInput.press('Enter');
    const edgeData = async () => (await api('GET', `/v1/boards/${boardId}/edges/${edge}`)).data.edge_data;
    await eventually('the edge label saved', async () => (await edgeData()).label === 'leads to');
    await page.getByTestId(`edge-label-${edge}`).getByText('leads to').waitFor();
    // Still selected: its tools are still there.
    await tools.getByRole('group', { name: 'Connection colour' }).getByRole('button', { name: 'Cyan' }).click();
    await eventually('the edge colour saved', async () => (await edgeData()).color === '5');
    assert.equal((await edgeData()).label, 'leads to', 'the label stays when the colour is set');
    // Undo and redo reach colours and labels too.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press('Control+z');
    await eventually('the edge colour undone', async () => (await edgeData()).color === undefined);
    assert.equal((await edgeData()).label, 'leads to', 'undoing the colour keeps the label');
    await page.keyboard.press('Control+z');
    await eventually('the edge label undone', async () => (await edgeData()).label === undefined);
    assert.equal((await nodeData(b)).label, 'Second step', 'the title set before the label stays');
    await page.keyboard.press('Control+Shift+z');
    await page.keyboard.press('Control+Shift+z');
    await eventually('both redone', async () => {
      const data = await edgeData();
      return data.label === 'leads to' && data.color === '5';
    });

    // A double-click on the label edits it again.
    await page.getByTestId(`edge-label-${edge}`).getByText('leads to').dblclick();
    await labelInput.fill('then');
    await labelInput.press('Enter');
    await eventually('the edited label saved', async () => (await edgeData()).label === 'then');
    assert.equal(await zoomOf(page), zoom, 'double-clicks on titles, connections and labels do not zoom the canvas');
    await allSaved(page);

    // The export keeps size, colour and label under the format's own keys.
    const canvas = await api('GET', `/v1/boards/${boardId}/export?format=jsoncanvas`);
    const exported = canvas.nodes.find((n: { id: string }) => n.id === a);
    assert.equal(exported.width, sized.width);
    assert.equal(exported.height, sized.height);
    assert.equal(exported.color, '4');
    assert.equal(canvas.edges[0].label, 'then');
    assert.equal(canvas.edges[0].color, '5');

    await page.reload();
    await page.getByRole('heading', { name: 'Cards board', level: 1 }).waitFor();
    await cardA.waitFor();
    const zoomAfter = await zoomOf(page);
    const box = await cardA.boundingBox();
    assert.ok(box);
    assert.ok(Math.abs(box.width - sized.width * zoomAfter) < 3, `width on screen ${box.width} for ${sized.width} at ${zoomAfter}`);
    assert.ok(Math.abs(box.height - sized.height * zoomAfter) < 3, `height on screen ${box.height} for ${sized.height} at ${zoomAfter}`);
    assert.equal(await cardA.getAttribute('data-color'), '4');
    await cardA.getByRole('button', { name: 'Menu of First step' }).waitFor();
    await cardB.getByRole('button', { name: 'Menu of Second step' }).waitFor();
    await page.getByTestId(`edge-label-${edge}`).getByText('then').waitFor();
    const stroke = await edgeEl.locator('.react-flow__edge-path').evaluate((el) => getComputedStyle(el).stroke);
    assert.equal(stroke, 'rgb(6, 182, 212)', 'the connection is drawn in cyan');

    // Someone who may only view the board sees all of it and can change none of it.
    await api('PATCH', `/v1/boards/${boardId}`, { is_public: true, public_access_level: 'view' });
    console.log('VIEWPORT', JSON.stringify((await api('GET', `/v1/boards/${boardId}`)).data).slice(0, 400));
    const visitor = await openBoardAsNewAccount(server, boardId, 'Cards board');
    try {
      await visitor.page.locator('.react-flow__controls-fitview').click();
      const seen = visitor.page.getByTestId(`node-${a}`);
      assert.equal(await seen.getAttribute('data-color'), '4');
      await seen.locator('.bw-node__title').click();
      await seen.locator('.bw-node__title').dblclick();
      await visitor.page.getByTestId(`edge-label-${edge}`).getByText('then').dblclick();
      await seen.getByRole('button', { name: 'Menu of First step' }).click();
      await visitor.page.getByRole('menuitem', { name: 'Chat about this' }).waitFor();
      assert.equal(await visitor.page.getByRole('menuitem', { name: 'Rename' }).count(), 0);
      assert.equal(await visitor.page.getByRole('group', { name: 'Card colour' }).count(), 0);
      assert.equal(await seen.getByRole('textbox', { name: 'Title' }).count(), 0, 'no title to edit');
      assert.equal(await visitor.page.locator('.react-flow__resize-control').count(), 0, 'no resize handles');
      assert.equal(await visitor.page.getByRole('textbox', { name: 'Connection label' }).count(), 0, 'no label to edit');
      assert.equal(await visitor.page.getByRole('toolbar', { name: 'Connection tools' }).count(), 0);
      assert.equal(await visitor.page.getByRole('button', { name: 'Add link' }).count(), 0);

      // The owner's changes reach the visitor's open page without a reload.
      await visitor.page.keyboard.press('Escape');
      await cardA.getByRole('button', { name: 'Menu of First step' }).click();
      await page.getByRole('group', { name: 'Card colour' }).getByRole('button', { name: 'Red' }).click();
      await eventually('the new colour on the visitor’s page', async () => (await seen.getAttribute('data-color')) === '1');
    } finally {
      await visitor.close();
    }
  } finally {
    await close();
  }
});

test('links are added from the toolbar, by paste and by drop; a video plays in its card', async () => {
  const { page, api, boardId, close } = await openNewBoard(server, 'Links board');
  const framed: string[] = [];
  // No request leaves the machine: the players and thumbnails are answered here.
  await page.route('https://www.youtube-nocookie.com/**', (route) => {
    framed.push(route.request().url());
    return route.abort();
  });
  await page.route('https://i.ytimg.com/**', (route) => route.abort());
  const nodes = async () =>
    (await api('GET', `/v1/boards/${boardId}/nodes`)).data as { id: string; node_type: string; node_data: { url: string } }[];
  try {
    // "Add link": what is not a web address is refused in the dialog, with the reason.
    await page.getByRole('button', { name: 'Add link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a link' });
    const address = dialog.getByRole('textbox', { name: 'Web address' });
    await address.fill('ftp://files.example.com/report.pdf');
    await dialog.getByRole('button', { name: 'Add link' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Only web addresses' }).waitFor();
    await address.fill('two words');
    await dialog.getByRole('button', { name: 'Add link' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'no spaces' }).waitFor();
    assert.equal((await nodes()).length, 0);
    await address.fill('https://www.example.com/docs/guide?lang=en');
    await dialog.getByRole('button', { name: 'Add link' }).click();
    await dialog.waitFor({ state: 'detached' });
    const [link] = await eventually('the url node', async () => ((await nodes()).length === 1 ? await nodes() : undefined));
    assert.equal(link!.node_type, 'url');
    assert.equal(link!.node_data.url, 'https://www.example.com/docs/guide?lang=en');
    // The card shows the site in bold and the rest of the address, the whole of it on hover.
    const anchor = page.getByTestId(`node-${link!.id}`).getByRole('link');
    assert.equal(await anchor.locator('strong').textContent(), 'example.com');
    assert.equal(await anchor.locator('.bw-card-link__path').textContent(), '/docs/guide?lang=en');
    assert.equal(await anchor.getAttribute('title'), 'https://www.example.com/docs/guide?lang=en');
    assert.equal(await anchor.getAttribute('target'), '_blank');
    assert.equal(await anchor.getAttribute('rel'), 'noopener noreferrer');

    // Paste: text that is not one address is left alone (not prevented); a YouTube address makes a video node.
    const paste = (text: string) =>
      page.evaluate((text) => {
        const data = new DataTransfer();
        data.setData('text/plain', text);
        const event = new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true });
        return document.body.dispatchEvent(event);
      }, text);
    assert.equal(await paste('see https://example.com for more'), true, 'a paste of other text is not taken');
    assert.equal(await paste('https://youtu.be/dQw4w9WgXcQ'), false, 'a pasted address is taken');
    const video = await eventually('the video node', async () => (await nodes()).find((n) => n.node_type === 'video'));
    assert.equal(video.node_data.url, 'https://youtu.be/dQw4w9WgXcQ');
    assert.equal((await nodes()).length, 2, 'only the address made a node');

    // Drop: a link dragged from elsewhere (text/uri-list) makes a url card where it is let go.
    const pane = await page.locator('.react-flow__pane').boundingBox();
    assert.ok(pane);
    const at = { x: pane.x + pane.width - 260, y: pane.y + pane.height - 160 };
    await page.evaluate(
      ({ at }) => {
        const data = new DataTransfer();
        data.setData('text/uri-list', '# dragged\r\nhttps://example.org/article');
        data.setData('text/plain', 'https://example.org/article');
        const target = document.elementFromPoint(at.x, at.y);
        if (!target) throw new Error('nothing to drop on');
        for (const type of ['dragenter', 'dragover', 'drop']) {
          target.dispatchEvent(new DragEvent(type, { bubbles: true, cancelable: true, clientX: at.x, clientY: at.y, dataTransfer: data }));
        }
      },
      { at },
    );
    const dropped = await eventually('the dropped url node', async () =>
      (await nodes()).find((n) => n.node_data.url === 'https://example.org/article'),
    );
    assert.equal(dropped.node_type, 'url');
    const droppedBox = await page.getByTestId(`node-${dropped.id}`).boundingBox();
    assert.ok(droppedBox);
    assert.ok(
      at.x > droppedBox.x && at.x < droppedBox.x + droppedBox.width && at.y > droppedBox.y && at.y < droppedBox.y + droppedBox.height,
      `the card ${JSON.stringify(droppedBox)} is where it was dropped ${JSON.stringify(at)}`,
    );

    // The video plays in its card once asked: YouTube's privacy-enhanced player, which the CSP lets load.
    const videoCard = page.getByTestId(`node-${video.id}`);
    assert.equal(await videoCard.locator('iframe').count(), 0, 'no player before it is asked for');
    await videoCard.getByRole('button', { name: 'Play Video' }).click();
    const frame = videoCard.locator('iframe');
    await frame.waitFor();
    assert.equal(await frame.getAttribute('src'), 'https://www.youtube-nocookie.com/embed/dQw4w9WgXcQ?autoplay=1&rel=0');
    await eventually('the player requested (not blocked by the CSP)', async () => framed.length > 0);
    assert.match(framed[0]!, /^https:\/\/www\.youtube-nocookie\.com\/embed\/dQw4w9WgXcQ/);
    const res = await fetch(`${server.url}/boards/${boardId}`);
    const policy = res.headers.get('content-security-policy') ?? '';
    assert.match(policy, /frame-src https:\/\/www\.youtube-nocookie\.com https:\/\/player\.vimeo\.com(;|$)/);
  } finally {
    await close();
  }
});
