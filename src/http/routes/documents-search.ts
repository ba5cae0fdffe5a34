// POST /v1/documents/search: the board search across every board the caller may read.
import { Type } from '@sinclair/typebox';
import { CrossBoardHit, CrossBoardSearchBody } from '../../contract/documents-search.js';
import { principalOf } from '../plugins/auth.js';
import { errorResponses, List } from '../schemas/common.js';
import type { App, Services } from '../types.js';

export function crossBoardSearchRoutes(app: App, services: Services): void {
  app.post(
    '/v1/documents/search',
    {
      schema: {
        tags: ['documents'],
        operationId: 'searchAllDocuments',
        summary: 'Search the chunks of every board the caller may read (or of board_ids), by descending score',
        description:
          "The board search's body and modes plus `board_ids`; each hit names its `board_id`. Without `board_ids`, the caller's own boards; " +
          'a named board the caller may not read matches nothing, as a board without chunks does.',
        body: CrossBoardSearchBody,
        response: { 200: List(CrossBoardHit), 502: Type.Ref('Error'), ...errorResponses },
      },
    },
    async (request) => {
      const page = await services.documents.searchAcrossBoards(principalOf(request), request.body);
      return { object: 'list' as const, ...page };
    },
  );
}
