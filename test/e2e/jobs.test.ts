// End to end: a read (vectorize job) that fails, seen on its node in Chromium against the real
// service. A pdf node whose file is a "scanned" PDF (a page with a drawn rectangle and no text) is
// read from its card; the job fails on the service, and the node shows the service's reason in its
// failed badge (also after a reload), with Read again (a new job), until Dismiss removes it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { TestServer } from '../helpers/harness.js';
import { makeScannedPdf, postParts } from '../helpers/assets.js';
import { eventually, openNewBoard, startWebServer } from './helpers/browser.js';

let server: TestServer;

before(async () => {
  server = await startWebServer();
});

after(async () => {
  await server?.close();
});

const NO_TEXT = 'The PDF has no extractable text (a scanned PDF needs OCR first)';

test('a scanned PDF read from its card shows the failed read with its reason (also after a reload) and Read again, until dismissed', async () => {
  const { page, api, account, boardId, close } = await openNewBoard(server, 'Scans board');
  try {
    // The scan is uploaded as an asset of the board and a pdf node names it (through the API).
    const upload = await postParts(server, account.accessToken, boardId, [
      { filename: 'receipt-scan.pdf', type: 'application/pdf', data: await makeScannedPdf(1) },
    ]);
    assert.equal(upload.status, 201, upload.text);
    const asset = upload.body.data;
    const node = (
      await api('POST', `/v1/boards/${boardId}/nodes`, {
        type: 'pdf',
        position: { x: 0, y: 0 },
        data: { storagePath: asset.storage_path, publicUrl: asset.url, fileSize: asset.size, label: 'Receipt scan', pageCount: 1 },
      })
    ).data;
    await page.reload();
    await page.getByRole('heading', { name: 'Scans board', level: 1 }).waitFor();
    const pdf = page.getByTestId(`node-${node.id}`);
    await pdf.getByText('1 page').waitFor();

    const started = page.waitForResponse(
      (r) => r.url() === `${server.url}/v1/boards/${boardId}/documents` && r.request().method() === 'POST',
    );
    // Made through the API, the node was not read by a page: its card offers Read.
    await pdf.getByRole('button', { name: 'Read', exact: true }).click();
    const answer = await started;
    assert.equal(answer.status(), 202);
    const jobId = ((await answer.json()) as { data: { id: string } }).data.id;

    // The node shows the failure with the service's own message.
    const badge = pdf.getByRole('alert');
    await badge.getByText(`Could not read it: ${NO_TEXT}`).waitFor({ timeout: 30_000 });
    assert.equal(await badge.getAttribute('class'), 'bw-job is-failed');
    assert.equal(await pdf.locator('.bw-job.is-busy, .bw-job.is-done').count(), 0);

    // The service agrees: the job failed with that error, and the node has no chunks.
    const job = await eventually('the job finished', async () => {
      const j = (await api('GET', `/v1/jobs/${jobId}`)).data;
      return j.status !== 'processing' ? j : undefined;
    });
    assert.equal(job.status, 'failed');
    assert.equal(job.error, NO_TEXT);
    assert.equal(job.result, null);
    assert.equal((await api('GET', `/v1/boards/${boardId}/documents?node_id=${node.id}`)).data.length, 0);

    // The failure is remembered in this browser: a reload shows it again, with its reason.
    await page.reload();
    await pdf.getByRole('alert').getByText(`Could not read it: ${NO_TEXT}`).waitFor({ timeout: 30_000 });

    // Read again asks the service once more: a new job, which fails the same way.
    const again = page.waitForResponse(
      (r) => r.url() === `${server.url}/v1/boards/${boardId}/documents` && r.request().method() === 'POST',
    );
    await pdf.getByRole('alert').getByRole('button', { name: 'Read again' }).click();
    const second = ((await (await again).json()) as { data: { id: string } }).data.id;
    assert.notEqual(second, jobId);
    await eventually('the second job failed', async () => (await api('GET', `/v1/jobs/${second}`)).data.status === 'failed');
    await pdf.getByRole('alert').getByText(`Could not read it: ${NO_TEXT}`).waitFor({ timeout: 30_000 });

    // Dismiss removes the failure (the card says it is not read); the node stays.
    await pdf.getByRole('alert').getByRole('button', { name: 'Dismiss' }).click();
    await pdf.locator('.bw-job.is-failed').waitFor({ state: 'detached' });
    assert.equal(await pdf.getByRole('alert').count(), 0);
    await pdf.getByText('Not read yet').waitFor();
    await pdf.getByText('Receipt scan').first().waitFor();
    assert.equal((await api('GET', `/v1/boards/${boardId}/nodes?type=pdf`)).data.length, 1);
  } finally {
    await close();
  }
});
