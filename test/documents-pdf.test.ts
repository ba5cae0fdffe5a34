// Vectorizing a pdf node: the text of each page is extracted from the stored file, so chunks carry
// their page. The PDF is made here with pdf-lib and uploaded as an asset through the API.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { uploadFile } from './helpers/assets.js';
import { startServer, type TestServer, type TestUser } from './helpers/harness.js';

let server: TestServer;
let user: TestUser;
before(async () => {
  server = await startServer({ JOB_POLL_MS: '50' });
  user = await server.user();
});
after(() => server.close());

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
  const node = await server.request('POST', `/v1/boards/${board}/nodes`, {
    token: user.token,
    body: { type: 'pdf', position: { x: 0, y: 0 }, data: { ...nodeData, label: 'Biology' } },
  });
  assert.equal(node.status, 201, node.text);
  const res = await server.request('POST', `/v1/boards/${board}/documents`, { token: user.token, body: { node_id: node.body.data.id } });
  assert.equal(res.status, 202, res.text);
  const job = await server.waitForJob(res.body.data.id, user.token);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  assert.deepEqual(job.result, { chunks: 3 });
  const list = await server.request('GET', `/v1/boards/${board}/documents?order=asc`, { token: user.token });
  assert.deepEqual(
    list.body.data.map((c: any) => [c.metadata.page, c.content, c.metadata.source, c.metadata.sourceType]),
    pages.map((text, i) => [i + 1, text, 'Biology', 'pdf']),
  );
  const hit = await server.request('POST', `/v1/boards/${board}/documents/search`, {
    token: user.token,
    body: { query: 'ribosomes proteins', limit: 1 },
  });
  assert.equal(hit.body.data[0].metadata.page, 3);
});
