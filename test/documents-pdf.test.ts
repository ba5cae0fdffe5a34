// Vectorizing a pdf node: the text of each page is extracted from the stored file, so chunks carry
// their page. The PDF is made here with pdf-lib and uploaded as an asset through the API. A job
// whose node or board is deleted while it runs fails saying so.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, test } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { uploadFile } from './helpers/assets.js';
import type { DocumentList, JobBody, SearchBody } from './helpers/api-types.js';
import { type TestUser, useServer } from './helpers/harness.js';

const server = useServer({ JOB_POLL_MS: '50' });
let user: TestUser;
before(async () => {
  user = await server.user();
});

async function pdfWithPages(texts: string[]): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (const text of texts) pdf.addPage([600, 400]).drawText(text, { x: 40, y: 300, size: 14, font });
  return Buffer.from(await pdf.save());
}

test('a three-page pdf gives chunks with pages 1..3, found by search', async () => {
  const board = await server.makeBoard(user);
  const pages = [
    'Photosynthesis turns light into sugar.',
    'Mitochondria are the powerhouse of the cell.',
    'Ribosomes build proteins from amino acids.',
  ];
  const { nodeData } = await uploadFile(server, user, board, await pdfWithPages(pages), 'biology.pdf', 'application/pdf');
  const node = await server.makeNode(user, board, { type: 'pdf', data: { ...nodeData, label: 'Biology' } });
  const res = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { node_id: node.id } });
  assert.equal(res.status, 202, res.text);
  const job = await server.waitForJob(res.body.data.id, user.token);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.deepEqual(job.result, { chunks: 3 });
  const list = await server.request<DocumentList>('GET', `/v1/boards/${board}/documents?order=asc`, { token: user.token });
  assert.deepEqual(
    list.body.data.map((c) => [c.metadata.page, c.content, c.metadata.source, c.metadata.sourceType]),
    pages.map((text, i) => [i + 1, text, 'Biology', 'pdf']),
  );
  const hit = await server.request<SearchBody>('POST', `/v1/boards/${board}/documents/search`, {
    token: user.token,
    body: { query: 'ribosomes proteins', limit: 1 },
  });
  assert.equal(hit.body.data[0]?.metadata.page, 3);
});

for (const target of ['node', 'board'] as const) {
  test(`a job whose ${target} is deleted while it runs fails with "The ${target} was deleted", and leaves no chunk set`, async () => {
    const board = await server.makeBoard(user);
    const pdf = await pdfWithPages(['Read only after the delete.']);
    const { asset, nodeData } = await uploadFile(server, user, board, pdf, 'late.pdf', 'application/pdf');
    const node = await server.makeNode(user, board, { type: 'pdf', data: nodeData });
    // The stored file becomes a named pipe, so the job's read of it waits for the test: the delete
    // lands after the job's own check of its board and node, and before it creates its chunk set.
    const file = path.join(server.config.dataDir, 'files', asset.storage_path);
    fs.rmSync(file);
    execFileSync('mkfifo', [file]);
    const res = await server.request<JobBody>('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { node_id: node.id } });
    assert.equal(res.status, 202, res.text);
    // Opening the pipe for writing returns once the job has opened it for reading.
    const writer = await fs.promises.open(file, 'w');
    try {
      const deleted = await server.request('DELETE', target === 'node' ? `/v1/boards/${board}/nodes/${node.id}` : `/v1/boards/${board}`, {
        token: user.token,
      });
      assert.equal(deleted.status, 200, deleted.text);
      await writer.writeFile(pdf);
    } finally {
      await writer.close();
    }
    const job = await server.waitForJob(res.body.data.id, user.token);
    assert.deepEqual(
      { status: job.status, error: job.error, result: job.result },
      { status: 'failed', error: `The ${target} was deleted`, result: null },
    );
    const sets = await server.database.db.selectFrom('chunk_sets').select('id').where('id', '=', job.id).execute();
    assert.deepEqual(sets, []);
  });
}
