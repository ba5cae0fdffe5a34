// JSON Canvas 1.0: GET /v1/boards/{boardId}/export?format=jsoncanvas answers a `.canvas` download;
// POST /v1/boards/import creates a board from one (a JSON body, or multipart/form-data with the file
// in the field "file"). The mapping: docs/json-canvas.md.
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import { create as contentDisposition } from 'content-disposition';
import { Board } from '../../contract/boards.js';
import { CanvasDocument, ImportWarning } from '../../contract/json-canvas.js';
import { ApiError, invalid } from '../../errors.js';
import { originOf } from '../origin.js';
import { principalOf } from '../plugins/auth.js';
import { streamedText } from '../streamed-text.js';
import { BoardParams, errorResponses, Single } from '../schemas/common.js';
import type { App, Services } from '../types.js';
import { validatorCompiler } from '../validation.js';
import { BOARD_NAME_MAX_CHARS } from '../../contract/limits.js';

const ImportResult = Type.Object({
  board: Board,
  nodes: Type.Integer({ description: 'Nodes created' }),
  edges: Type.Integer({ description: 'Edges created' }),
  warnings: Type.Array(ImportWarning, { description: 'What could not be kept as it was, by where it is in the document' }),
});

const Name = Type.String({
  minLength: 1,
  maxLength: BOARD_NAME_MAX_CHARS,
  pattern: '\\S',
  description: "The new board's name; default: the name the export carries, or the file's",
});

/** Reads a whole file part, refusing one larger than `max` bytes. */
async function readPart(stream: NodeJS.ReadableStream, max: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new ApiError('payload_too_large', `The canvas file is larger than the limit of ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function interchangeRoutes(app: App, services: Services): void {
  const { canvas, config } = services;

  app.get(
    '/v1/boards/:boardId/export',
    {
      // A full read: one of the user's slots of expensive work, held until the answer is out.
      config: { heavy: true },
      schema: {
        tags: ['boards'],
        operationId: 'exportBoard',
        summary: 'Export a board as a JSON Canvas 1.0 file (.canvas)',
        description:
          "Streamed as the board's rows are read (chunked, no Content-Length). A full read is expensive work: at most HEAVY_WORK_PER_USER of a user's run at once, more wait their turn, and past HEAVY_WORK_QUEUE_PER_USER waiting the answer is 429 rate_limited with Retry-After (docs/api.md, Rate limits).",
        params: BoardParams,
        querystring: Type.Object(
          { format: Type.Literal('jsoncanvas', { description: 'jsoncanvas (JSON Canvas 1.0)' }) },
          { additionalProperties: false },
        ),
        response: { 200: CanvasDocument, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { name, body } = await canvas.export(principalOf(request), request.params.boardId);
      reply.header('content-disposition', contentDisposition(`${name}.canvas`));
      // Streamed as its rows are read (the document's text as the schema would write it).
      return reply.type('application/json; charset=utf-8').send(streamedText(body));
    },
  );

  // Multipart is parsed only in this scope: every other route still answers 415 to it.
  app.register(async (scope) => {
    await scope.register(multipart, {
      limits: { fileSize: config.bodyLimitBytes + 1, files: 1, fields: 2, parts: 3, fieldNameSize: 100, headerPairs: 20 },
      throwFileSizeLimit: false,
    });
    (scope as unknown as App).post(
      '/v1/boards/import',
      {
        config: { heavy: true },
        schema: {
          tags: ['boards'],
          operationId: 'importBoard',
          summary: 'Create a board from a JSON Canvas 1.0 document',
          description: `The document as the JSON body (name in \`?name=\`), or multipart/form-data with the \`.canvas\` file in the field "file" (and an optional field "name"). At most ${config.bodyLimitBytes} bytes. All or nothing: a document that is not valid JSON Canvas 1.0 is 400 naming the JSON pointer of the first problem; what could not be kept as it was is listed in \`warnings\`.`,
          querystring: Type.Object({ name: Type.Optional(Name) }, { additionalProperties: false }),
          body: {
            content: {
              'application/json': { schema: CanvasDocument },
              'multipart/form-data': {
                schema: Type.Object({ file: Type.String({ format: 'binary' }), name: Type.Optional(Name) }, { required: ['file'] }),
              },
            },
          },
          response: { 201: Single('board_import', ImportResult), 409: Type.Ref('Error'), 413: Type.Ref('Error'), ...errorResponses },
        },
        // The document is checked by the import itself, which names the JSON pointer of a problem.
        validatorCompiler: (route) => (route.httpPart === 'body' ? (value: unknown) => ({ value }) : validatorCompiler(route)),
      },
      async (request, reply) => {
        let document: unknown = request.body;
        let name = request.query.name;
        if (request.isMultipart()) {
          document = undefined;
          for await (const part of request.parts()) {
            if (part.type === 'field' && part.fieldname === 'name' && typeof part.value === 'string') name = part.value.trim() || name;
            else if (part.type === 'file' && part.fieldname === 'file') {
              const text = await readPart(part.file, config.bodyLimitBytes);
              try {
                document = JSON.parse(text);
              } catch {
                throw invalid('The canvas file is not JSON');
              }
              name ??=
                part.filename
                  ?.replace(/\.canvas$/i, '')
                  .trim()
                  .slice(0, 200) || undefined;
            } else {
              if (part.type === 'file') part.file.resume();
              throw invalid(`${part.fieldname} is not a recognised field; send the file in the field "file"`);
            }
          }
          if (document === undefined) throw invalid('Send the .canvas file in the field "file"');
        }
        const data = await canvas.import(principalOf(request), document, name, originOf(request));
        return reply.code(201).send({ object: 'board_import', data });
      },
    );
  });
}
