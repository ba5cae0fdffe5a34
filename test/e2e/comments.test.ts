// End to end (issue 31, comments): the owner and a commenter on one private board, in two browsers.
// A thread started from a card's menu (with an @mention picked from the board's members) appears
// live on the other's card as a pin with an unread mark; opening it clears the mark; a reply and a
// resolve reach the other side live; a comment at a point of the canvas (the canvas's context
// menu) shows as a pin there; a send that fails keeps its text with "Not sent" and Retry; and once
// the member is made a viewer, there is no reply box and no "Comment" in a card's menu.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { eventually, launchBrowser, openNewBoard, signUp, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

test('comments on a card and at a point are live between two people, with unread marks, replies and resolve', async () => {
  const colleague = await signUp(server);
  const colleagueName = colleague.email.split('@')[0]!;
  let nodeId = '';
  const owner = await openNewBoard(server, 'Budget review', async (api, boardId) => {
    nodeId = (await api('POST', `/v1/boards/${boardId}/nodes`, { type: 'note', position: { x: 0, y: 0 }, data: { text: 'Budget' } })).data
      .id;
    await api('POST', `/v1/boards/${boardId}/members`, { user_id: colleague.userId, role: 'commenter' });
  });
  const other = await launchBrowser();
  try {
    await other.context.addCookies([
      { name: 'bw_refresh', value: colleague.refreshCookie, url: `${server.url}/v1/auth`, httpOnly: true, sameSite: 'Strict' },
    ]);
    await other.page.goto(`${server.url}/boards/${owner.boardId}`);
    await other.page.getByRole('heading', { name: 'Budget review', level: 1 }).waitFor();
    await other.page.getByTestId(`node-${nodeId}`).waitFor();

    // The owner comments on the card from its menu, mentioning the colleague through the picker.
    const ownerCard = owner.page.getByTestId(`node-${nodeId}`);
    await ownerCard.getByRole('button', { name: 'Menu of Budget' }).click();
    await owner.page.getByRole('menuitem', { name: 'Comment', exact: true }).click();
    const ownerPanel = owner.page.getByRole('complementary', { name: 'Comments' });
    const box = ownerPanel.getByRole('combobox', { name: 'Comment', exact: true });
    await box.fill('Please check the totals ');
    await box.pressSequentially('@');
    const picker = ownerPanel.getByRole('listbox', { name: 'People to mention' });
    await picker.getByRole('option', { name: new RegExp(colleagueName) }).waitFor();
    await box.press('Enter');
    assert.match(await box.inputValue(), new RegExp(`@${colleagueName} $`));
    await ownerPanel.getByRole('button', { name: 'Comment', exact: true }).click();
    await ownerPanel
      .getByRole('article', { name: /Comment by/ })
      .getByText('Please check the totals')
      .waitFor();
    const created = await owner.api('GET', `/v1/boards/${owner.boardId}/comments`);
    assert.equal(created.data.length, 1);
    assert.deepEqual(created.data[0].mentions, [colleague.userId], 'the picked person is mentioned');
    assert.equal(created.data[0].node_id, nodeId);

    // Live on the colleague's card: a pin with one open thread, unread; and the header says so.
    const pin = other.page.getByTestId(`comment-pin-${nodeId}`);
    await eventually('the pin with its unread mark', async () =>
      /1 open thread, unread/.test((await pin.getAttribute('aria-label')) ?? ''),
    );
    await other.page.getByRole('button', { name: 'Comments, 1 unread' }).waitFor();
    // Opening it shows the thread and clears the mark.
    await pin.click();
    const otherPanel = other.page.getByRole('complementary', { name: 'Comments' });
    await otherPanel.getByText('Please check the totals').waitFor();
    await eventually('the mark cleared', async () => !/unread/.test((await pin.getAttribute('aria-label')) ?? 'unread'));
    await other.page.getByRole('button', { name: 'Comments', exact: true }).waitFor();
    await eventually('the read mark kept by the service', async () => {
      const list = await server.request<any>('GET', `/v1/boards/${owner.boardId}/comments`, { token: colleague.accessToken });
      return list.body.data[0].unread === false;
    });

    // A reply reaches the owner's open thread live.
    await otherPanel.getByRole('combobox', { name: 'Reply' }).fill('On it, the travel line is off');
    await otherPanel.getByRole('button', { name: 'Reply', exact: true }).click();
    await ownerPanel.getByText('On it, the travel line is off').waitFor();

    // The owner resolves it: it leaves the colleague's open threads and the card's pin goes.
    await ownerPanel.getByRole('button', { name: 'Resolve' }).click();
    await otherPanel.getByText('Resolved', { exact: true }).waitFor();
    await pin.waitFor({ state: 'detached' });
    await otherPanel.getByRole('button', { name: '← All threads' }).click();
    await otherPanel.getByText('No open threads.').waitFor();
    await otherPanel.getByRole('button', { name: 'Resolved', exact: true }).click();
    await otherPanel.getByRole('list', { name: 'Resolved threads' }).getByText('Please check the totals').waitFor();

    // A comment at a point of the canvas, from the canvas's context menu: a pin there for the other.
    const canvas = owner.page.locator('.bw-canvas');
    const area = (await canvas.boundingBox())!;
    await owner.page.mouse.click(area.x + area.width * 0.3, area.y + area.height * 0.85, { button: 'right' });
    await owner.page.getByRole('menuitem', { name: 'Comment here' }).click();
    await ownerPanel.getByRole('combobox', { name: 'Comment', exact: true }).fill('Room for the Q4 plan');
    await ownerPanel.getByRole('button', { name: 'Comment', exact: true }).click();
    await other.page.getByRole('button', { name: /Comment by .*: Room for the Q4 plan \(unread\)/ }).waitFor();
    const point = (await owner.api('GET', `/v1/boards/${owner.boardId}/comments?resolved=false`)).data;
    assert.equal(point.length, 1);
    assert.equal(point[0].node_id, null);
    assert.equal(typeof point[0].position.x, 'number');

    // A send that fails keeps its text, says "Not sent", and goes on Retry.
    await otherPanel.getByRole('button', { name: 'Open', exact: true }).click();
    await otherPanel.getByRole('button', { name: 'New comment' }).click();
    const draft = otherPanel.getByRole('combobox', { name: 'Comment', exact: true });
    await draft.fill('Written while the line is down');
    await other.page.route('**/v1/boards/*/comments', (route) =>
      route.request().method() === 'POST' ? route.abort('internetdisconnected') : route.continue(),
    );
    await otherPanel.getByRole('button', { name: 'Comment', exact: true }).click();
    await otherPanel.getByRole('alert').getByText('Not sent.').waitFor();
    assert.equal(await draft.inputValue(), 'Written while the line is down');
    await other.page.unroute('**/v1/boards/*/comments');
    await otherPanel.getByRole('button', { name: 'Retry' }).click();
    await otherPanel
      .getByRole('article', { name: /Comment by/ })
      .getByText('Written while the line is down')
      .waitFor();
    await ownerPanel.getByRole('button', { name: '← All threads' }).click();
    await ownerPanel.getByRole('list', { name: 'Open threads' }).getByText('Written while the line is down').waitFor();
    const all = (await owner.api('GET', `/v1/boards/${owner.boardId}/comments`)).data;
    assert.equal(all.filter((c: { content: string }) => c.content === 'Written while the line is down').length, 1, 'sent once');

    // Made a viewer, the colleague reads the threads but has no reply box and no "Comment".
    await owner.api('PATCH', `/v1/boards/${owner.boardId}/members/${colleague.userId}`, { role: 'viewer' });
    await other.page.reload();
    await other.page.getByRole('heading', { name: 'Budget review', level: 1 }).waitFor();
    await other.page.getByRole('button', { name: /^Comments(, \d+ unread)?$/ }).click();
    await otherPanel.getByRole('list', { name: 'Open threads' }).getByText('Written while the line is down').click();
    await otherPanel
      .getByRole('article', { name: /Comment by/ })
      .first()
      .waitFor();
    assert.equal(await otherPanel.getByRole('combobox', { name: 'Reply' }).count(), 0, 'a viewer gets no reply box');
    assert.equal(await otherPanel.getByRole('button', { name: 'Resolve' }).count(), 0);
    await other.page.getByTestId(`node-${nodeId}`).getByRole('button', { name: 'Menu of Budget' }).click();
    await other.page.getByRole('menuitem', { name: 'Chat about this' }).waitFor();
    assert.equal(await other.page.getByRole('menuitem', { name: 'Comment', exact: true }).count(), 0);
  } finally {
    await other.close();
    await owner.close();
  }
});
