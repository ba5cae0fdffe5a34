// Search across boards (`POST /v1/documents/search`): the board search's body plus `board_ids`,
// and its hit plus the `board_id` it stands on.
import { type Static, Type } from '@sinclair/typebox';
import { Uuid } from './common.js';
import { Hit, SearchBody } from './documents.js';
import { IDS_MAX_ITEMS } from './limits.js';

/** Boards one search across boards reads at most (the caller's most recently changed ones when not named). */
export const CROSS_SEARCH_MAX_BOARDS = IDS_MAX_ITEMS;

export const CrossBoardSearchBody = Type.Object(
  {
    ...SearchBody.properties,
    board_ids: Type.Optional(
      Type.Array(Uuid, {
        minItems: 1,
        maxItems: CROSS_SEARCH_MAX_BOARDS,
        description:
          'Only these boards (each one the caller may read: its own, or public; any other id matches nothing). ' +
          `Default: the caller's own boards, the ${CROSS_SEARCH_MAX_BOARDS} most recently changed that have chunks`,
      }),
    ),
  },
  { additionalProperties: false },
);
export type CrossBoardSearchBody = Static<typeof CrossBoardSearchBody>;

export const CrossBoardHit = Type.Object({ ...Hit.properties, board_id: Uuid });
export type CrossBoardHit = Static<typeof CrossBoardHit>;
