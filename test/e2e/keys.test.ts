// End-to-end: the API keys page. Create a key with scopes and an expiry, see the raw key once
// (copy button, "you will not see it again"), use it against the API, see its last use, revoke it
// after a confirmation and see calls with it refused.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { allowClipboard, readClipboard, saveScreenshot, signedInBrowser, startWebServer } from './helpers/browser.js';

let server: TestServer;
before(async () => {
  server = await startWebServer();
});
after(async () => server?.close());

test('create a key with scopes, read it once, use it, revoke it, and see it refused', async () => {
  const browser = await signedInBrowser(server, '/keys');
  try {
    const { page } = browser;
    await allowClipboard(browser, server);
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    await page.getByText('No API keys yet.').waitFor();

    // Nothing is sent without a name; the message says what is missing.
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('alert').getByText('Give the key a name').waitFor();

    const form = page.getByRole('form', { name: 'Create a key' });
    await form.getByLabel('Name').fill('Nightly import');
    assert.equal(await form.getByLabel('read').isChecked(), true, 'read is preselected');
    await form.getByLabel('write').check();
    const nextYear = new Date().getFullYear() + 1;
    await form.getByLabel('Expires on (optional)').fill(`${nextYear}-06-30`);
    await form.getByRole('button', { name: 'Create key' }).click();

    const shown = page.getByRole('region', { name: /Your new key/ });
    await shown.waitFor();
    assert.match(await shown.innerText(), /you will not see it again/i);
    await saveScreenshot(page, 'api-key-created.png');
    const rawKey = await shown.getByLabel('New API key').inputValue();
    assert.match(rawKey, /^bwk_test_[A-Za-z0-9_-]{43}$/);
    await shown.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Key copied').waitFor();
    assert.equal(await readClipboard(page), rawKey);

    // The list shows the key's prefix, scopes and expiry; never the key itself.
    const keyRow = page.getByRole('row').filter({ hasText: 'Nightly import' });
    assert.match(await keyRow.innerText(), new RegExp(`${rawKey.slice(0, 12)}…[\\s\\S]*read, write[\\s\\S]*Never[\\s\\S]*${nextYear}`));

    // The key works against the API, within its scopes.
    const listed = await fetch(`${server.url}/v1/boards`, { headers: { authorization: `Bearer ${rawKey}` } });
    assert.equal(listed.status, 200);
    const adminOnly = await fetch(`${server.url}/v1/me/api-keys`, { headers: { authorization: `Bearer ${rawKey}` } });
    assert.equal(adminOnly.status, 403);

    // Once dismissed the raw key is gone from the page; a reload shows the last use.
    await shown.getByRole('button', { name: 'Done' }).click();
    await shown.waitFor({ state: 'detached' });
    await page.reload();
    await keyRow.waitFor();
    assert.equal((await page.content()).includes(rawKey), false);
    const cells = await keyRow.getByRole('cell').allInnerTexts();
    assert.notEqual(cells[4], 'Never', `last used is shown (${cells.join(' | ')})`);
    await saveScreenshot(page, 'api-keys.png');

    await keyRow.getByRole('button', { name: 'Revoke Nightly import' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await keyRow.getByText('Revoked').waitFor();

    const refused = await fetch(`${server.url}/v1/boards`, { headers: { authorization: `Bearer ${rawKey}` } });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { code: string }).code, 'unauthorized');
  } finally {
    await browser.close();
  }
});
