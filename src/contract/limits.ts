// Every limit of the contract, once: the TypeBox schemas (src/contract/*.ts), the service's own
// checks, the MCP tools' zod schemas (src/mcp/) and the web app's checks (web/src, through the
// `@board-workspace/limits` alias) read them from here. This file imports nothing, so the web app
// can take it without taking the service along.

/** The largest absolute canvas coordinate: node positions, a board's viewport, a presence cursor. */
export const COORDINATE_MAX = 1e12;
/** The largest viewport zoom. */
export const ZOOM_MAX = 1000;

/** Characters (code points) of a note's or document node's `data.text`. */
export const NODE_TEXT_MAX_CHARS = 100_000;
/** Characters of a node's URL (`data.url`): url, video and document nodes. */
export const URL_MAX_CHARS = 8_192;
/** Characters of a storage path: a file node's `data.storagePath`, an asset's path in storage. */
export const PATH_MAX_CHARS = 1_024;
/** Bytes of a node's or edge's free-form data as JSON text (a note's text not counted). */
export const DATA_MAX_BYTES = 64 * 1024;
/** Levels of nesting of node and edge data. */
export const DATA_MAX_DEPTH = 64;
/** Characters of a card's or connection's label, as MCP and JSON Canvas take it. */
export const LABEL_MAX_CHARS = 1_000;
/** Characters of an edge's type. */
export const EDGE_TYPE_MAX_CHARS = 100;

/** Characters of a board's name. */
export const BOARD_NAME_MAX_CHARS = 200;
/** Characters of a chat's title. */
export const CHAT_TITLE_MAX_CHARS = 200;
/** Characters of a chat message a user sends. */
export const CHAT_MESSAGE_MAX_CHARS = 32_000;
/** Characters of a search query. */
export const SEARCH_QUERY_MAX_CHARS = 2_000;
/** Characters of a text sent to be vectorized. */
export const VECTORIZE_TEXT_MAX_CHARS = 5_000_000;
/** Characters of a board version's name (board history). */
export const HISTORY_NAME_MAX_CHARS = 200;
/** Characters of an API key's name. */
export const API_KEY_NAME_MAX_CHARS = 100;

/** Operations of one batch request. */
export const BATCH_MAX_OPERATIONS = 500;
/** Items of a page of a list (`limit`). */
export const PAGE_MAX_ITEMS = 100;
/** Node ids one request may name (a search's `node_ids`, a presence selection, MCP's read_nodes). */
export const IDS_MAX_ITEMS = 100;

/** JSON Canvas import: the largest absolute coordinate, size and id length of the format's own nodes. */
export const CANVAS_COORDINATE_MAX = 1e9;
export const CANVAS_SIZE_MAX = 1e7;
export const CANVAS_ID_MAX_CHARS = 200;
/** JSON Canvas import: nodes, and edges, one document may hold. */
export const CANVAS_MAX_ITEMS = 100_000;

/** Characters of a comment on a board. */
export const COMMENT_MAX_CHARS = 10_000;
/** People one comment may mention. */
export const COMMENT_MENTIONS_MAX = 50;
